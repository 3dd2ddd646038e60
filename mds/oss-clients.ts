// gRPC clients of the OSSs, one per address, made on first use and kept:
// the MDS's workers (recovery, scrub, destroy) and fsck each hold a set.
import * as grpc from '@grpc/grpc-js';
import { CLIENT_OPTIONS } from '../common/index.js';
import type { OssServiceClient } from '../proto/gen/stripefs/v1/OssService.js';
import { contract } from '../proto/index.js';

export class OssClients {
  private readonly clients = new Map<string, OssServiceClient>();

  /** The client of the OSS at `address`. */
  get(address: string): OssServiceClient {
    let client = this.clients.get(address);
    if (!client) {
      client = new (contract().OssService)(address, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
      this.clients.set(address, client);
    }
    return client;
  }

  closeAll(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
