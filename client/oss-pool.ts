// Connections to OSSs, shared by every file of a client: per OSS one
// ObjectTransport (client/object-transport.ts), the bulk path when the map
// gives the OST a bulk address and gRPC otherwise, over the client's one gRPC
// channel to it. Requests in flight are bounded per OSS and in total, and the
// per-OSS slot is taken before the total one, so one slow OSS cannot stall
// requests to the others. What a request came to is a typed answer: a read
// may be given up unsent (`sent: false`), a run may end short (`complete:
// false`); an OST the map marks down fails writes and flushes with OST_DOWN.
import type { BlockStamps } from '../common/block-stamps.js';
import type { Pieces, SegmentChecksums } from '../common/bulk/frame.js';
import { ChannelCache } from '../common/channels.js';
import { crc32c } from '../common/checksum.js';
import { StripeError } from '../common/errors.js';
import type { RequestTag } from '../common/jobs/job-id.js';
import { Semaphore } from '../common/semaphore.js';
import type { TlsSource } from '../common/tls.js';
import type { OssServiceClient } from '../proto/gen/stripefs/v1/OssService.js';
import { contract } from '../proto/index.js';
import type { ObjectRefFields as ObjectRef } from '../wire/index.js';
import { BulkTransport } from './bulk-transport.js';
import type { ClientCounters } from './counters.js';
import { GrpcTransport } from './grpc-transport.js';
import type { ClientLimits } from './limits.js';
import type {
  ObjectTransport,
  PartPlaces,
  TicketSource,
  TransportHooks,
  WriteAnswer,
  WriteOptions,
} from './object-transport.js';

/** Where one OST's OSS listens: gRPC always, the bulk path when it has one ('' otherwise). */
export interface OssEndpoint {
  grpcAddress: string;
  bulkAddress: string;
}

/**
 * A read's answer: the bytes (shorter than asked where the object ends) with their block stamps
 * (common/block-stamps.ts; undefined from an OSS from before stamps), or given up before it was sent.
 */
export type ReadAnswer = { sent: true; data: Buffer; stamps: BlockStamps | undefined } | { sent: false };

/** A run's answer: every part handed over, or not (the object ended first), or not sent and why. */
export type RunAnswer = { sent: true; complete: boolean } | { sent: false; why: 'suspect' | 'no-bulk' };

const NOT_SENT: ReadAnswer = { sent: false };
const RUN_NOT_SENT_SUSPECT: RunAnswer = { sent: false, why: 'suspect' };
const RUN_NO_BULK: RunAnswer = { sent: false, why: 'no-bulk' };

interface OssConnection {
  /** Always there: Flush, and everything where there is no bulk path. */
  control: GrpcTransport;
  transport: ObjectTransport;
  slots: Semaphore;
}

/** crc32c of the bytes of `data`, piece after piece. */
function crcOf(data: Pieces): number {
  if (data instanceof Uint8Array) return crc32c(data);
  let crc = 0;
  for (const piece of data) crc = crc32c(piece, crc);
  return crc;
}

export class OssPool {
  private readonly connections = new Map<string, OssConnection>();
  /** The client's one gRPC channel to each OSS. */
  private readonly channels: ChannelCache<OssServiceClient>;
  private readonly total: Semaphore;
  private readonly hooks: TransportHooks;

  constructor(
    private readonly limits: ClientLimits,
    /** Requests sent per transport, and bulk reads rechecked by the OSS, for stats and tests. */
    private readonly counters: Pick<ClientCounters, 'requests' | 'checksumRechecks'>,
    /** Buffers bulk reads land in (the client's block pool). */
    allocRead?: (bytes: number) => Buffer,
    /** Hears how long each read waited for its answer to begin, by OST (OstHealth.observeLatency). */
    onReadAnswered: (ostId: number, ms: number) => void = () => undefined,
    /** Whether the client's current map marks an OST down (writes and flushes to it are not sent). */
    private readonly isDown: (ostId: number) => boolean = () => false,
    /** The job and session every request carries (job statistics); none: untagged. */
    private readonly tag?: RequestTag,
    /** Each request's data-path ticket (client/tickets.ts); none: requests carry none. */
    private readonly tickets?: TicketSource,
    /** TLS to the OSSs, gRPC and bulk alike (common/tls.ts; undefined: as configured). */
    private readonly tls?: TlsSource,
  ) {
    this.channels = new ChannelCache(contract().OssService, {}, tls);
    this.total = new Semaphore(limits.inFlightTotalMax);
    this.hooks = {
      onReadAnswered,
      onChecksumRecheck: () => {
        this.counters.checksumRechecks++;
      },
      ...(allocRead ? { allocRead } : {}),
    };
  }

  private connection(endpoint: OssEndpoint): OssConnection {
    let conn = this.connections.get(endpoint.grpcAddress);
    if (!conn) {
      const control = new GrpcTransport(
        this.channels.get(endpoint.grpcAddress),
        endpoint.grpcAddress,
        {
          requestTimeoutMs: this.limits.requestTimeoutMs,
          wirePieceBytes: this.limits.wirePieceBytes,
          ...(this.tag ? { tag: this.tag } : {}),
          ...(this.tickets ? { tickets: this.tickets } : {}),
        },
        this.hooks,
      );
      conn = { control, transport: control, slots: new Semaphore(this.limits.inFlightPerOssMax) };
      this.connections.set(endpoint.grpcAddress, conn);
    }
    const bulkAddress = this.limits.bulkEnabled ? endpoint.bulkAddress : '';
    if (
      bulkAddress &&
      !(conn.transport instanceof BulkTransport && conn.transport.bulkAddress === bulkAddress)
    ) {
      // A bulk address (first use, or the OSS restarted on another port).
      conn.transport.close();
      conn.transport = new BulkTransport(
        bulkAddress,
        conn.control,
        {
          connectionsMax: this.limits.inFlightPerOssMax,
          requestTimeoutMs: this.limits.requestTimeoutMs,
          ...(this.tag ? { tag: this.tag } : {}),
          ...(this.tickets ? { tickets: this.tickets } : {}),
          tls: this.tls,
        },
        this.hooks,
      );
    }
    return conn;
  }

  /** Runs `task` holding one slot of the OSS and one of the total. */
  private bounded<T>(endpoint: OssEndpoint, task: (conn: OssConnection) => Promise<T>): Promise<T> {
    const conn = this.connection(endpoint);
    return conn.slots.run(() => this.total.run(() => task(conn)));
  }

  /**
   * Stores `data` at `offset` of the object; resolves when the OSS has it (in its page cache, or on
   * disk for a sync write that answers durable).
   * `checksums` (segmentChecksums of data at offset) is shared by every replica and retry of one write.
   */
  writeChunk(
    endpoint: OssEndpoint,
    ref: ObjectRef,
    offset: number,
    data: Pieces,
    checksum = crcOf(data),
    checksums?: SegmentChecksums,
    options: WriteOptions = {},
  ): Promise<WriteAnswer> {
    const asBuffer = (b: Uint8Array): Buffer =>
      Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length);
    const buf = data instanceof Uint8Array ? asBuffer(data) : data.map(asBuffer);
    return this.bounded(endpoint, (conn) => {
      this.refuseIfDown(ref);
      this.counters.requests[conn.transport.kind]++;
      return conn.transport.write(ref, offset, buf, checksum, checksums, options);
    });
  }

  /**
   * Reads up to `length` bytes; a shorter answer means the object ends there. `mayGiveUp`,
   * asked once the request has its slots, may give it up unsent (`sent: false`).
   */
  readRange(
    endpoint: OssEndpoint,
    ref: ObjectRef,
    offset: number,
    length: number,
    mayGiveUp?: () => boolean,
  ): Promise<ReadAnswer> {
    return this.bounded(endpoint, async (conn) => {
      if (mayGiveUp?.()) return NOT_SENT;
      this.counters.requests[conn.transport.kind]++;
      const { data, stamps } = await conn.transport.read(ref, offset, length);
      return { sent: true, data, stamps };
    });
  }

  /** Reads parts back to back from `offset` in one request (ObjectTransport.readRun), where the transport has one. */
  readRun(
    endpoint: OssEndpoint,
    ref: ObjectRef,
    offset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer, stamps?: BlockStamps) => void,
    mayGiveUp?: () => boolean,
    into?: PartPlaces,
  ): Promise<RunAnswer> {
    return this.bounded(endpoint, async (conn) => {
      const { transport } = conn;
      if (!transport.readRun) return RUN_NO_BULK;
      if (mayGiveUp?.()) return RUN_NOT_SENT_SUSPECT;
      this.counters.requests[transport.kind]++;
      const result = await transport.readRun(ref, offset, lengths, onPart, into);
      return { sent: true, complete: result.complete };
    });
  }

  flush(endpoint: OssEndpoint, ref: ObjectRef): Promise<void> {
    return this.bounded(endpoint, (conn) => {
      this.refuseIfDown(ref);
      return conn.transport.flush(ref);
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

  /** Fails this client's requests in flight to OST `ostId`, which the map now says is down, with OST_DOWN; returns how many. */
  abortOst(endpoint: OssEndpoint, ostId: number, why: string): number {
    return this.connections.get(endpoint.grpcAddress)?.transport.abortOst(ostId, why) ?? 0;
  }

  close(): void {
    for (const conn of this.connections.values()) conn.transport.close();
    this.connections.clear();
    this.channels.closeAll();
  }
}
