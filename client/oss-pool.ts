// Connections to OSSs: one gRPC channel per OSS address, reused by every file,
// with bounded requests in flight per OSS and in total. Bulk bytes go over
// OssService WriteChunk / ReadRange streams until the bulk path of
// common/bulk/ exists (then only this file changes).
import * as grpc from '@grpc/grpc-js';
import { crc32c } from '../common/checksum.js';
import { StripeError } from '../common/errors.js';
import { CLIENT_OPTIONS, call, fromGrpcError } from '../common/grpc.js';
import { Semaphore } from '../common/semaphore.js';
import type { OssServiceClient } from '../proto/gen/stripefs/v1/OssService.js';
import {
  contract,
  type ObjectRef,
  type ReadRangeResponse__Output,
  type WriteChunkResponse__Output,
} from '../proto/index.js';
import type { ClientLimits } from './limits.js';

interface OssConnection {
  client: OssServiceClient;
  slots: Semaphore;
}

export class OssPool {
  private readonly connections = new Map<string, OssConnection>();
  private readonly total: Semaphore;

  constructor(private readonly limits: ClientLimits) {
    this.total = new Semaphore(limits.inFlightTotalMax);
  }

  private connection(address: string): OssConnection {
    let conn = this.connections.get(address);
    if (!conn) {
      const v1 = contract();
      conn = {
        client: new v1.OssService(address, grpc.credentials.createInsecure(), CLIENT_OPTIONS),
        slots: new Semaphore(this.limits.inFlightPerOssMax),
      };
      this.connections.set(address, conn);
    }
    return conn;
  }

  /** Runs `task` holding one slot of the OSS and one of the total (per-OSS first: no head-of-line blocking of other OSSs). */
  private async bounded<T>(address: string, task: (client: OssServiceClient) => Promise<T>): Promise<T> {
    const conn = this.connection(address);
    return conn.slots.run(() => this.total.run(() => task(conn.client)));
  }

  private deadline(): grpc.CallOptions {
    return { deadline: Date.now() + this.limits.requestTimeoutMs };
  }

  writeChunk(
    address: string,
    ref: ObjectRef,
    offset: number,
    data: Uint8Array,
  ): Promise<WriteChunkResponse__Output> {
    const checksum = crc32c(data);
    return this.bounded(address, (client) => {
      return new Promise<WriteChunkResponse__Output>((resolve, reject) => {
        const stream = client.WriteChunk(this.deadline(), (err, response) => {
          if (err) reject(fromGrpcError(err));
          else if (!response) reject(new StripeError('REQ_INTERNAL', 'WriteChunk without response'));
          else resolve(response);
        });
        stream.write({ header: { ref, offset, length: data.length, crc32c: checksum, truncate: false } });
        const piece = this.limits.wirePieceBytes;
        for (let at = 0; at < data.length; at += piece)
          stream.write({ data: data.subarray(at, Math.min(at + piece, data.length)) });
        stream.end();
      });
    });
  }

  /** Reads up to `length` bytes; a shorter answer means the object ends there. */
  readRange(address: string, ref: ObjectRef, offset: number, length: number): Promise<Buffer> {
    return this.bounded(address, (client) => {
      return new Promise<Buffer>((resolve, reject) => {
        const pieces: Buffer[] = [];
        let received = 0;
        const stream = client.ReadRange({ ref, offset, length }, this.deadline());
        stream.on('data', (message: ReadRangeResponse__Output) => {
          pieces.push(message.data);
          received += message.data.length;
          if (received > length) stream.cancel();
        });
        stream.on('error', (err) => reject(fromGrpcError(err)));
        stream.on('end', () => {
          if (received > length)
            reject(new StripeError('REQ_INTERNAL', `ReadRange sent ${received} bytes for ${length}`));
          else resolve(pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, received));
        });
      });
    });
  }

  flush(address: string, ref: ObjectRef): Promise<void> {
    return this.bounded(address, (client) =>
      call(client, 'Flush', { ref }, this.deadline()).then(() => undefined),
    );
  }

  close(): void {
    for (const conn of this.connections.values()) conn.client.close();
    this.connections.clear();
  }
}
