// Object bytes over the bulk data path (common/bulk/: framed TCP, segments
// checksummed on both ends, at most inFlightPerOssMax connections kept per
// OSS); Flush still goes over gRPC, through the OSS's GrpcTransport.
import type { BlockStamps } from '../common/block-stamps.js';
import { BulkClient, type RunResult, type StampedRead } from '../common/bulk/client.js';
import type { Pieces, SegmentChecksums } from '../common/bulk/frame.js';
import type { RequestTag } from '../common/jobs/job-id.js';
import type { TlsSource } from '../common/tls.js';
import type { ObjectRefFields as ObjectRef } from '../wire/index.js';
import type { GrpcTransport } from './grpc-transport.js';
import type {
  ObjectTransport,
  PartPlaces,
  TicketSource,
  TransportHooks,
  WriteAnswer,
  WriteOptions,
} from './object-transport.js';

export class BulkTransport implements ObjectTransport {
  readonly kind = 'bulk';
  private readonly bulk: BulkClient;
  private readonly retrying: <T>(ref: ObjectRef, run: () => Promise<T>) => Promise<T>;

  constructor(
    readonly bulkAddress: string,
    /** The same OSS's gRPC transport, for Flush. */
    private readonly control: GrpcTransport,
    opts: {
      connectionsMax: number;
      requestTimeoutMs: number;
      tag?: RequestTag;
      tickets?: TicketSource;
      tls?: TlsSource;
    },
    private readonly hooks: TransportHooks,
  ) {
    const tickets = opts.tickets;
    this.retrying = tickets ? (ref, run) => tickets.retrying(ref.objectId, run) : (_ref, run) => run();
    this.bulk = new BulkClient(bulkAddress, {
      ...(tickets ? { ticketOf: (objectId: string) => tickets.get(objectId) } : {}),
      ...(opts.tag ? { tag: opts.tag } : {}),
      connectionsMax: opts.connectionsMax,
      timeoutMs: opts.requestTimeoutMs,
      onChecksumRecheck: hooks.onChecksumRecheck,
      onReadAnswered: (ref, ms) => hooks.onReadAnswered(ref.ostId, ms),
      tls: opts.tls,
    });
  }

  async write(
    ref: ObjectRef,
    offset: number,
    data: Pieces,
    checksum: number,
    checksums?: SegmentChecksums,
    options: WriteOptions = {},
  ): Promise<WriteAnswer> {
    const { truncate = false, stamp, sync = false } = options;
    const opts = {
      truncate,
      sync,
      ...(checksums ? { checksums } : {}),
      ...(stamp ? { version: stamp } : {}),
    };
    const { version, durable } = await this.retrying(ref, () =>
      this.bulk.write(ref, offset, data, checksum, opts),
    );
    return { version, durable };
  }

  read(ref: ObjectRef, offset: number, length: number): Promise<StampedRead> {
    return this.retrying(ref, () => this.bulk.readStamped(ref, offset, length, this.hooks.allocRead));
  }

  readRun(
    ref: ObjectRef,
    offset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer, stamps?: BlockStamps) => void,
    into?: PartPlaces,
  ): Promise<RunResult> {
    // A refusal comes before any part is handed over, so the run can be asked for again whole.
    return this.retrying(ref, () =>
      this.bulk.readRun(ref, offset, lengths, onPart, this.hooks.allocRead, into),
    );
  }

  flush(ref: ObjectRef): Promise<void> {
    return this.control.flush(ref);
  }

  /** Bulk requests close their connection (BulkClient.abortOst); flushes are the control transport's. */
  abortOst(ostId: number, why: string): number {
    return this.bulk.abortOst(ostId, why) + this.control.abortOst(ostId, why);
  }

  close(): void {
    this.bulk.close();
  }
}
