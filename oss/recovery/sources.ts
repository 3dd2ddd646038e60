// Connections from this OSS to the source OSSs of a recovery: gRPC for
// listings, the bulk path for data. Kept per address and closed with the OSS.

import { cachedTicket, ticketOptions } from '../../common/auth/signing.js';
import { BulkClient } from '../../common/bulk/client.js';
import { ChannelCache } from '../../common/channels.js';
import { call, deadlineIn } from '../../common/grpc.js';
import type { OssServiceClient } from '../../proto/gen/stripefs/v1/OssService.js';
import { contract } from '../../proto/index.js';
import { SERVICE_TICKET_TTL_MS, type TicketGuard } from '../tickets.js';
import {
  RECOVERY_BULK_CONNECTIONS_MAX,
  RECOVERY_LIST_PAGE,
  RECOVERY_LIST_TIMEOUT_MS,
  RECOVERY_PG_OBJECTS_MAX,
} from './limits.js';

export interface SourceRef {
  ostId: number;
  grpcAddress: string;
  bulkAddress: string;
  position: number;
  inPlacement: boolean;
}

export interface ListedObject {
  objectId: string;
  size: number;
  /** Writes applied to the source's copy: a copy made from it keeps this version. */
  version: number;
}

export class SourcePool {
  /** The OSS's one channel to each other OSS, for recovery and scrub alike, with its service ticket. */
  private readonly grpcClients: ChannelCache<OssServiceClient>;
  private readonly bulkClients = new Map<string, BulkClient>();
  private readonly serviceTicket: () => string | undefined;

  constructor(tickets?: TicketGuard) {
    this.serviceTicket = cachedTicket(() => tickets?.serviceTicket(), SERVICE_TICKET_TTL_MS);
    this.grpcClients = new ChannelCache(contract().OssService, ticketOptions(this.serviceTicket));
  }

  grpcOf(address: string): OssServiceClient {
    return this.grpcClients.get(address);
  }

  bulkOf(address: string): BulkClient {
    let client = this.bulkClients.get(address);
    if (!client) {
      client = new BulkClient(address, {
        connectionsMax: RECOVERY_BULK_CONNECTIONS_MAX,
        ticketOf: this.serviceTicket,
      });
      this.bulkClients.set(address, client);
    }
    return client;
  }

  /** Every object of (pool, pg) on a source OST, paged. */
  async list(source: SourceRef, poolId: number, pg: number): Promise<ListedObject[]> {
    const out: ListedObject[] = [];
    let cursor = '';
    do {
      const page = await call(
        this.grpcOf(source.grpcAddress),
        'ListObjects',
        { ostId: source.ostId, poolId, pg, cursor, limit: RECOVERY_LIST_PAGE },
        deadlineIn(RECOVERY_LIST_TIMEOUT_MS),
      );
      for (const o of page.objects)
        out.push({ objectId: o.objectId, size: Number(o.size), version: Number(o.version) });
      if (out.length > RECOVERY_PG_OBJECTS_MAX) throw new Error(`PG ${poolId}/${pg} lists over the limit`);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  /** The version of one object on a source OST (StatObject). */
  async statVersion(
    source: SourceRef,
    ref: { ostId: number; objectId: string; poolId: number; pg: number; mapEpoch: number },
  ): Promise<number> {
    const res = await call(
      this.grpcOf(source.grpcAddress),
      'StatObject',
      { ref },
      deadlineIn(RECOVERY_LIST_TIMEOUT_MS),
    );
    return Number(res.version);
  }

  close(): void {
    this.grpcClients.closeAll();
    for (const c of this.bulkClients.values()) c.close();
    this.bulkClients.clear();
  }
}
