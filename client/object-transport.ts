// How the client moves object bytes to and from one OSS. Two implementations:
// the bulk data path (client/bulk-transport.ts: framed TCP, common/bulk/)
// and gRPC streams (client/grpc-transport.ts), used where an OSS has no bulk
// address or the client runs with bulkEnabled 0. OssPool picks one per OSS
// when it first reaches it; nothing above it asks which one it got.
import type { Pieces, SegmentChecksums } from '../common/bulk/frame.js';
import type { ObjectRefFields as ObjectRef } from '../wire/index.js';

export type { RunResult, StampedRead } from '../common/bulk/client.js';

import type { BlockStamps } from '../common/block-stamps.js';
import type { RunResult, StampedRead } from '../common/bulk/client.js';

/**
 * Where part i of a run lands: exactly its length of the caller's memory (a large read's result
 * buffer), handed to onPart as it is; undefined: a buffer of the transport's own (the block pool).
 */
export type PartPlaces = (index: number) => Buffer | undefined;

export interface WriteOptions {
  /** The object ends at offset + data.length afterwards (an empty write at N cuts it to N bytes). */
  truncate?: boolean;
  /** The writer's version stamp (client/version-clock.ts). */
  stamp?: number;
  /** Ask the OSS to make the object durable before it answers (a Flush in the same request). */
  sync?: boolean;
}

/** What a write came to: the copy's version afterwards, and whether a sync write's flush held. */
export interface WriteAnswer {
  version: number;
  /** Every write of the object acknowledged so far is durable (only a sync write says so). */
  durable: boolean;
}

export interface ObjectTransport {
  /** Which transport this is, for stats().requests. */
  readonly kind: 'bulk' | 'grpc';
  /**
   * Stores `data` at `offset`; `checksums` (segmentChecksums of data at offset) may be shared by replicas and retries.
   * Resolves with the copy's version afterwards and, for a sync write, whether it is durable (a transport
   * without sync writes answers not durable, and the writer flushes it).
   */
  write(
    ref: ObjectRef,
    offset: number,
    /** One buffer, or several back to back (a run of stripe units), sent as one request. */
    data: Pieces,
    checksum: number,
    checksums?: SegmentChecksums,
    options?: WriteOptions,
  ): Promise<WriteAnswer>;
  /**
   * Up to `length` bytes from `offset`, a shorter answer meaning the object ends there, with the
   * block stamps of what was read (common/block-stamps.ts).
   */
  read(ref: ObjectRef, offset: number, length: number): Promise<StampedRead>;
  /**
   * Parts of `lengths` back to back from `offset` in one request, each handed to `onPart` as it
   * arrives with its block stamps. Absent where the transport has no such request (gRPC).
   */
  readRun?(
    ref: ObjectRef,
    offset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer, stamps?: BlockStamps) => void,
    into?: PartPlaces,
  ): Promise<RunResult>;
  /** fsync of the object at its OSS. */
  flush(ref: ObjectRef): Promise<void>;
  /** Fails this transport's requests in flight to OST `ostId` with OST_DOWN; returns how many. */
  abortOst(ostId: number, why: string): number;
  /** Releases what the transport holds of its own (the gRPC channel belongs to the process's ChannelCache). */
  close(): void;
}

/** Where both transports get each request's data-path ticket (client/tickets.ts). */
export interface TicketSource {
  /** The ticket for a request to `objectId` (undefined: none). */
  get(objectId: string): string | undefined | Promise<string | undefined>;
  /** Runs a request; refused for its ticket, once more with a fresh one. */
  retrying<T>(objectId: string, run: () => Promise<T>): Promise<T>;
}

/** What both transports report back to the client. */
export interface TransportHooks {
  /** How long a read waited for its answer to begin, by OST (OstHealth.observeLatency). */
  onReadAnswered: (ostId: number, ms: number) => void;
  /** A bulk read that failed its checksum here and was read again with the OSS's check. */
  onChecksumRecheck: () => void;
  /** Buffers bulk reads land in (the client's block pool). */
  allocRead?: (bytes: number) => Buffer;
}
