// Direct access to the stored copies of an object, for the scrub tests:
// where the copies of a file's object (or ec chunk) are placed, each copy's
// bytes and version read straight from its OST, and planting a wrong copy on
// one OST through its OSS (delete, then write it once stamped with `version`:
// valid block checksums and the version we want, as a stale or divergent copy has).
import * as grpc from '@grpc/grpc-js';
import { MdsClient } from '../../client/mds-client.js';
import { ServiceTicket } from '../../client/tickets.js';
import { ticketOptions } from '../../common/auth/signing.js';
import { BulkClient } from '../../common/bulk/client.js';
import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { CLIENT_OPTIONS, call } from '../../common/grpc.js';
import { objectToPg, placePg } from '../../placement/index.js';
import type { OssServiceClient } from '../../proto/gen/stripefs/v1/OssService.js';
import { contract } from '../../proto/index.js';
import type { Cluster } from '../helpers/cluster.js';
import { errorCode } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';

export interface CopyRef {
  ostId: number;
  objectId: string;
  poolId: number;
  pg: number;
}

export class Copies {
  private readonly grpcClients = new Map<number, OssServiceClient>();
  private readonly bulkClients = new Map<number, BulkClient>();
  private epoch = 0;

  private constructor(
    private readonly mds: MdsClient,
    private view: Awaited<ReturnType<MdsClient['refreshMap']>>,
    /** Reaching OSTs directly takes a service ticket (an admin's) when the MDS runs with auth. */
    private readonly ticket: ServiceTicket,
  ) {
    this.epoch = view.epoch;
  }

  static async open(cluster: Cluster): Promise<Copies> {
    const mds = new MdsClient(cluster.mdsAddress);
    const ticket = new ServiceTicket(() => mds.serviceTicket());
    await ticket.refresh();
    return new Copies(mds, await mds.refreshMap(), ticket);
  }

  async refresh(): Promise<void> {
    this.view = await this.mds.refreshMap();
    this.epoch = this.view.epoch;
  }

  /** The pool whose rule matches: replicated `size`, or ec `k`+`m`. */
  poolOf(match: { size?: number; k?: number; m?: number }): number {
    for (const pool of this.view.pools.values()) {
      const r = pool.rule;
      if (match.size !== undefined && r.kind === 'replicated' && r.size === match.size) return pool.id;
      if (match.k !== undefined && r.kind === 'erasure' && r.k === match.k && r.m === match.m) return pool.id;
    }
    throw new Error(`no pool ${JSON.stringify(match)}`);
  }

  /** `placed` under the newest map (a pool is created by the first file of its layout). */
  async locate(match: { size?: number; k?: number; m?: number }, objectId: string): Promise<CopyRef[]> {
    await this.refresh();
    return this.placed(this.poolOf(match), objectId);
  }

  /** Every placed copy of an object: replicated ids are `<inode>.<index>`, ec chunks `<inode>.0.c<position>`. */
  placed(poolId: number, objectId: string): CopyRef[] {
    const pool = this.view.pools.get(poolId)!;
    const chunk = /^(.*)\.c(\d+)$/.exec(objectId);
    const key = pool.rule.kind === 'erasure' && chunk ? chunk[1]! : objectId;
    const pg = objectToPg(pool, key);
    const osts = placePg(this.view.map, pool, pg).osts;
    const members = chunk && pool.rule.kind === 'erasure' ? [osts[Number(chunk[2])]!] : osts;
    return members.map((ostId) => ({ ostId, objectId, poolId, pg }));
  }

  /** The OSTs a PG is placed on under the newest map read. */
  pgMembers(poolId: number, pg: number): number[] {
    return [...placePg(this.view.map, this.view.pools.get(poolId)!, pg).osts];
  }

  private grpcOf(ostId: number): OssServiceClient {
    let client = this.grpcClients.get(ostId);
    if (!client) {
      const address = this.view.osts.get(ostId)!.grpcAddress;
      client = new (contract().OssService)(address, grpc.credentials.createInsecure(), {
        ...CLIENT_OPTIONS,
        ...ticketOptions(() => this.ticket.get()),
      });
      this.grpcClients.set(ostId, client);
    }
    return client;
  }

  private bulkOf(ostId: number): BulkClient {
    let client = this.bulkClients.get(ostId);
    if (!client) {
      client = new BulkClient(this.view.osts.get(ostId)!.bulkAddress, { ticketOf: () => this.ticket.get() });
      this.bulkClients.set(ostId, client);
    }
    return client;
  }

  private wire(ref: CopyRef) {
    return { ...ref, mapEpoch: this.epoch };
  }

  async stat(ref: CopyRef): Promise<{ size: number; version: number }> {
    const res = await call(this.grpcOf(ref.ostId), 'StatObject', { ref: this.wire(ref) });
    return { size: Number(res.size), version: Number(res.version) };
  }

  /**
   * The whole copy. A copy its OSS still refuses as stale (OBJ_STALE) is asked again for up to
   * 30 s: a PG the MDS reports clean reaches its OSSs' stale lists with their next heartbeat answer.
   */
  async bytes(ref: CopyRef): Promise<Buffer> {
    const { size } = await this.stat(ref);
    // Any other failure ends the wait at once and is thrown as it came.
    const answer = await eventually(
      () =>
        this.bulkOf(ref.ostId)
          .read(this.wire(ref), 0, size)
          .then(
            (data) => ({ data }),
            (err: unknown) => (err instanceof StripeError && err.code === 'OBJ_STALE' ? undefined : { err }),
          ),
      { timeoutMs: 30_000, what: `${ref.objectId} on OST ${ref.ostId} served (not refused as stale)` },
    );
    if ('err' in answer) throw answer.err;
    return answer.data;
  }

  /** The first `length` bytes of the copy in one bulk read (no stat first: one request to its OSS). */
  read(ref: CopyRef, length: number): Promise<Buffer> {
    return this.bulkOf(ref.ostId).read(this.wire(ref), 0, length);
  }

  /**
   * What a read of the copy's first `length` bytes gets once its OSS has heard from the MDS: its
   * error code, or 'served'. REQ_UNAVAILABLE (no read lease yet) is waited out for up to `timeoutMs`.
   */
  codeOnceHeard(ref: CopyRef, length: number, options: { timeoutMs: number; what: string }): Promise<string> {
    return eventually(async () => {
      const code = await this.read(ref, length).then(() => 'served', errorCode);
      return code === 'REQ_UNAVAILABLE' ? undefined : code;
    }, options);
  }

  /** Tells the copy's OSS it missed writes (MarkStale, as the MDS does): its reads are refused. */
  async markStale(ref: CopyRef): Promise<void> {
    await call(this.grpcOf(ref.ostId), 'MarkStale', { ostId: ref.ostId, objectIds: [ref.objectId] });
  }

  /** Replaces the copy with `data`, written once with `version` as its stamp (so its version is exactly that). */
  async plant(ref: CopyRef, data: Buffer, version: number): Promise<void> {
    await call(this.grpcOf(ref.ostId), 'DeleteObject', { ref: this.wire(ref) });
    await this.bulkOf(ref.ostId).write(this.wire(ref), 0, data, crc32c(data), { truncate: true, version });
  }

  close(): void {
    for (const c of this.grpcClients.values()) c.close();
    for (const c of this.bulkClients.values()) c.close();
    this.mds.close();
  }
}
