// Connections to OSSs, shared by every file of a client. Object bytes go over
// the bulk data path (common/bulk/, framed TCP) when the map gives the OST a
// bulk address, and over OssService WriteChunk / ReadRange streams otherwise;
// Flush is always gRPC. Requests in flight are bounded per OSS and in total,
// and the per-OSS slot is taken before the total one, so one slow OSS cannot
// stall requests to the others. A bulk client keeps at most as many
// connections as the per-OSS limit and reuses them.
import type * as grpc from '@grpc/grpc-js';
import { BulkClient } from '../common/bulk/client.js';
import type { SegmentChecksums } from '../common/bulk/frame.js';
import { ChannelCache } from '../common/channels.js';
import { crc32c } from '../common/checksum.js';
import { StripeError } from '../common/errors.js';
import { call, deadlineIn, fromGrpcError } from '../common/grpc.js';
import { OstRequests } from '../common/ost-requests.js';
import { Semaphore } from '../common/semaphore.js';
import type { OssServiceClient } from '../proto/gen/stripefs/v1/OssService.js';
import { contract, type ObjectRef, type ReadRangeResponse__Output } from '../proto/index.js';
import type { ClientCounters } from './counters.js';
import type { ClientLimits } from './limits.js';

/** Where one OST's OSS listens: gRPC always, the bulk path when it has one ('' otherwise). */
export interface OssEndpoint {
  grpcAddress: string;
  bulkAddress: string;
}

interface OssConnection {
  client: OssServiceClient;
  bulk: BulkClient | undefined;
  slots: Semaphore;
}

/** What the bulk path needs of a ref (every field, unlike the proto input type). */
function bulkRef(ref: ObjectRef): {
  ostId: number;
  objectId: string;
  poolId: number;
  pg: number;
  mapEpoch: number;
} {
  return {
    ostId: ref.ostId ?? 0,
    objectId: ref.objectId ?? '',
    poolId: ref.poolId ?? 0,
    pg: ref.pg ?? 0,
    mapEpoch: Number(ref.mapEpoch ?? 0),
  };
}

export class OssPool {
  private readonly connections = new Map<string, OssConnection>();
  /** The client's one gRPC channel to each OSS. */
  private readonly channels = new ChannelCache(contract().OssService);
  /** gRPC requests in flight (bulk ones are tracked by their BulkClient). */
  private readonly grpcInFlight = new OstRequests();
  private readonly total: Semaphore;
  constructor(
    private readonly limits: ClientLimits,
    /** Requests sent per transport, and bulk reads rechecked by the OSS, for stats and tests. */
    private readonly counters: Pick<ClientCounters, 'requests' | 'checksumRechecks'>,
    /** Buffers bulk reads land in (the client's block pool). */
    private readonly allocRead?: (bytes: number) => Buffer,
    /** Hears how long each read waited for its answer to begin, by OST (OstHealth.observeLatency). */
    private readonly onReadAnswered: (ostId: number, ms: number) => void = () => undefined,
    /** Whether the client's current map marks an OST down (writes and flushes to it are not sent). */
    private readonly isDown: (ostId: number) => boolean = () => false,
  ) {
    this.total = new Semaphore(limits.inFlightTotalMax);
  }

  private connection(endpoint: OssEndpoint): OssConnection {
    let conn = this.connections.get(endpoint.grpcAddress);
    if (!conn) {
      conn = {
        client: this.channels.get(endpoint.grpcAddress),
        bulk: undefined,
        slots: new Semaphore(this.limits.inFlightPerOssMax),
      };
      this.connections.set(endpoint.grpcAddress, conn);
    }
    if (this.limits.bulkEnabled && endpoint.bulkAddress && conn.bulk?.address !== endpoint.bulkAddress) {
      // A new bulk address (first use, or the OSS restarted on another port).
      conn.bulk?.close();
      conn.bulk = new BulkClient(endpoint.bulkAddress, {
        connectionsMax: this.limits.inFlightPerOssMax,
        timeoutMs: this.limits.requestTimeoutMs,
        onChecksumRecheck: () => {
          this.counters.checksumRechecks++;
        },
        onReadAnswered: (ref, ms) => this.onReadAnswered(ref.ostId, ms),
      });
    }
    return conn;
  }

  /** Runs `task` holding one slot of the OSS and one of the total. */
  private bounded<T>(endpoint: OssEndpoint, task: (conn: OssConnection) => Promise<T>): Promise<T> {
    const conn = this.connection(endpoint);
    return conn.slots.run(() => this.total.run(() => task(conn)));
  }

  private deadline(): grpc.CallOptions {
    return deadlineIn(this.limits.requestTimeoutMs);
  }

  /**
   * Stores `data` at `offset` of the object; resolves when the OSS has it (in its page cache).
   * `checksums` (segmentChecksums of data at offset) is shared by every replica and retry of one write.
   */
  writeChunk(
    endpoint: OssEndpoint,
    ref: ObjectRef,
    offset: number,
    data: Uint8Array,
    checksum = crc32c(data),
    checksums?: SegmentChecksums,
  ): Promise<void> {
    return this.bounded(endpoint, async (conn) => {
      this.refuseIfDown(ref);
      if (conn.bulk) {
        this.counters.requests.bulk++;
        const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.length);
        await conn.bulk.write(bulkRef(ref), offset, buf, checksum, checksums ? { checksums } : {});
        return;
      }
      this.counters.requests.grpc++;
      await this.grpcInFlight.race(ref.ostId ?? 0, this.grpcWrite(conn.client, ref, offset, data, checksum));
    });
  }

  private grpcWrite(
    client: OssServiceClient,
    ref: ObjectRef,
    offset: number,
    data: Uint8Array,
    checksum: number,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const stream = client.WriteChunk(this.deadline(), (err, response) => {
        if (err) reject(fromGrpcError(err));
        else if (!response) reject(new StripeError('REQ_INTERNAL', 'WriteChunk without response'));
        else resolve();
      });
      stream.write({ header: { ref, offset, length: data.length, crc32c: checksum, truncate: false } });
      const piece = this.limits.wirePieceBytes;
      for (let at = 0; at < data.length; at += piece)
        stream.write({ data: data.subarray(at, Math.min(at + piece, data.length)) });
      stream.end();
    });
  }

  /**
   * Reads up to `length` bytes; a shorter answer means the object ends there.
   * `skip`, asked once the request has its slots, may give up on it (REQ_UNAVAILABLE) without sending it.
   */
  readRange(
    endpoint: OssEndpoint,
    ref: ObjectRef,
    offset: number,
    length: number,
    skip?: () => boolean,
  ): Promise<Buffer> {
    return this.bounded(endpoint, async (conn) => {
      if (skip?.())
        throw new StripeError('REQ_UNAVAILABLE', `skipped a read of ${ref.objectId}: its OST is failing`, {
          skipped: true,
        });
      if (conn.bulk) {
        this.counters.requests.bulk++;
        return conn.bulk.read(bulkRef(ref), offset, length, this.allocRead);
      }
      this.counters.requests.grpc++;
      return this.grpcInFlight.race(ref.ostId ?? 0, this.grpcRead(conn.client, ref, offset, length));
    });
  }

  /**
   * Reads parts back to back from `offset` in one bulk request (BulkClient.readRun);
   * fails with REQ_UNAVAILABLE `details.noBulk` where the OSS has no bulk path.
   */
  readRun(
    endpoint: OssEndpoint,
    ref: ObjectRef,
    offset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer) => void,
    skip?: () => boolean,
  ): Promise<void> {
    return this.bounded(endpoint, async (conn) => {
      if (!conn.bulk)
        throw new StripeError('REQ_UNAVAILABLE', 'no bulk path to this OSS', { noBulk: true, skipped: true });
      if (skip?.())
        throw new StripeError('REQ_UNAVAILABLE', `skipped a read of ${ref.objectId}: its OST is failing`, {
          skipped: true,
        });
      this.counters.requests.bulk++;
      await conn.bulk.readRun(bulkRef(ref), offset, lengths, onPart, this.allocRead);
    });
  }

  private grpcRead(
    client: OssServiceClient,
    ref: ObjectRef,
    offset: number,
    length: number,
  ): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const pieces: Buffer[] = [];
      let received = 0;
      const sent = performance.now();
      const stream = client.ReadRange({ ref, offset, length }, this.deadline());
      stream.on('data', (message: ReadRangeResponse__Output) => {
        if (pieces.length === 0) this.onReadAnswered(ref.ostId ?? 0, performance.now() - sent);
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
  }

  flush(endpoint: OssEndpoint, ref: ObjectRef): Promise<void> {
    return this.bounded(endpoint, (conn) => {
      this.refuseIfDown(ref);
      return this.grpcInFlight
        .race(ref.ostId ?? 0, call(conn.client, 'Flush', { ref }, this.deadline()))
        .then(() => undefined);
    });
  }

  /**
   * A write or flush that waited for its slot while the map marked its OST down is not sent
   * (a stopped OSS would hold it for the whole request timeout). Reads are not refused here:
   * they order down copies last and still try one when nothing else is left.
   */
  private refuseIfDown(ref: ObjectRef): void {
    if (this.isDown(ref.ostId ?? 0))
      throw new StripeError('OST_DOWN', `OST ${ref.ostId} is marked down in the cluster map: not sent`, {
        ostId: ref.ostId,
      });
  }

  /**
   * Fails this client's requests in flight to OST `ostId`, which the map now says is down, with
   * OST_DOWN (bulk ones close their connection, see
   * BulkClient.abortOst); returns how many.
   */
  abortOst(endpoint: OssEndpoint, ostId: number, why: string): number {
    const bulk = this.connections.get(endpoint.grpcAddress)?.bulk?.abortOst(ostId, why) ?? 0;
    return bulk + this.grpcInFlight.abortOst(ostId, ` at ${endpoint.grpcAddress}`, why);
  }

  close(): void {
    for (const conn of this.connections.values()) conn.bulk?.close();
    this.channels.closeAll();
    this.connections.clear();
  }
}
