// Object bytes over OssService's WriteChunk / ReadRange streams, and every
// Flush (the bulk path has no flush). Requests in flight are registered by
// OST so a map that marks one down can fail them at once (the call itself
// runs out its deadline unheard).

import type * as grpc from '@grpc/grpc-js';
import { ticketInterceptor } from '../common/auth/signing.js';
import type { Pieces } from '../common/bulk/frame.js';
import { StripeError } from '../common/errors.js';
import { call, deadlineIn, fromGrpcError } from '../common/grpc.js';
import type { RequestTag } from '../common/jobs/job-id.js';
import { taggedCallOptions } from '../common/jobs/tag-interceptor.js';
import { OstRequests } from '../common/ost-requests.js';
import type { OssServiceClient } from '../proto/gen/stripefs/v1/OssService.js';
import type { ReadRangeResponse__Output } from '../proto/index.js';
import type { ObjectRefFields as ObjectRef } from '../wire/index.js';
import type {
  ObjectTransport,
  StampedRead,
  TicketSource,
  TransportHooks,
  WriteAnswer,
  WriteOptions,
} from './object-transport.js';

export class GrpcTransport implements ObjectTransport {
  readonly kind = 'grpc';
  private readonly inFlight = new OstRequests();
  /** The client's job tag on every call (per call: the channel may be shared). */
  private readonly tagged: grpc.CallOptions;

  constructor(
    private readonly client: OssServiceClient,
    /** The OSS's gRPC address, named in errors. */
    readonly address: string,
    private readonly opts: {
      requestTimeoutMs: number;
      wirePieceBytes: number;
      tag?: RequestTag;
      tickets?: TicketSource;
    },
    private readonly hooks: Pick<TransportHooks, 'onReadAnswered'>,
  ) {
    this.tagged = taggedCallOptions(opts.tag);
  }

  private callOptions(ticket?: string): grpc.CallOptions {
    const options = { ...deadlineIn(this.opts.requestTimeoutMs), ...this.tagged };
    if (ticket === undefined) return options;
    return { ...options, interceptors: [...(options.interceptors ?? []), ticketInterceptor(ticket)] };
  }

  /** Runs `request` with the ticket for `ref` (none without tickets), once more on a stale one. */
  private ticketed<T>(ref: ObjectRef, request: (options: grpc.CallOptions) => Promise<T>): Promise<T> {
    const tickets = this.opts.tickets;
    if (!tickets) return request(this.callOptions());
    return tickets.retrying(ref.objectId, async () =>
      request(this.callOptions(await tickets.get(ref.objectId))),
    );
  }

  write(
    ref: ObjectRef,
    offset: number,
    data: Pieces,
    checksum: number,
    _checksums?: unknown,
    options: WriteOptions = {},
  ): Promise<WriteAnswer> {
    // The fallback path: a run of pieces is joined into one buffer for the stream.
    const bytes =
      data instanceof Uint8Array
        ? Buffer.from(data.buffer, data.byteOffset, data.length)
        : Buffer.concat(data);
    // WriteChunk has no sync flag: a sync write is answered not durable and flushed by the writer.
    return this.ticketed(ref, async (callOptions) => ({
      version: await this.writeOnce(ref, offset, bytes, checksum, callOptions, options),
      durable: false,
    }));
  }

  read(ref: ObjectRef, offset: number, length: number): Promise<StampedRead> {
    return this.ticketed(ref, (callOptions) => this.readOnce(ref, offset, length, callOptions));
  }

  private writeOnce(
    ref: ObjectRef,
    offset: number,
    data: Buffer,
    checksum: number,
    callOptions: grpc.CallOptions,
    options: WriteOptions,
  ): Promise<number> {
    const { truncate = false, stamp = 0 } = options;
    const sent = new Promise<number>((resolve, reject) => {
      const stream = this.client.WriteChunk(callOptions, (err, response) => {
        if (err) reject(fromGrpcError(err));
        else if (!response) reject(new StripeError('REQ_INTERNAL', 'WriteChunk without response'));
        else resolve(Number(response.version));
      });
      stream.write({
        header: { ref, offset, length: data.length, crc32c: checksum, truncate, version: stamp },
      });
      const piece = this.opts.wirePieceBytes;
      for (let at = 0; at < data.length; at += piece)
        stream.write({ data: data.subarray(at, Math.min(at + piece, data.length)) });
      stream.end();
    });
    return this.inFlight.race(ref.ostId ?? 0, sent);
  }

  private readOnce(
    ref: ObjectRef,
    offset: number,
    length: number,
    callOptions: grpc.CallOptions,
  ): Promise<StampedRead> {
    const received = new Promise<StampedRead>((resolve, reject) => {
      const pieces: Buffer[] = [];
      let bytes = 0;
      let stamps: number[] = [];
      const sent = performance.now();
      const stream = this.client.ReadRange({ ref, offset, length }, callOptions);
      stream.on('data', (message: ReadRangeResponse__Output) => {
        if (pieces.length === 0) {
          this.hooks.onReadAnswered(ref.ostId ?? 0, performance.now() - sent);
          stamps = message.blockStamps.map(Number);
        }
        pieces.push(message.data);
        bytes += message.data.length;
        if (bytes > length) stream.cancel();
      });
      stream.on('error', (err) => reject(fromGrpcError(err)));
      stream.on('end', () => {
        if (bytes > length)
          reject(new StripeError('REQ_INTERNAL', `ReadRange sent ${bytes} bytes for ${length}`));
        else
          resolve({
            data: pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, bytes),
            // Bytes without stamps come from an OSS from before stamps: none known.
            stamps: bytes > 0 && stamps.length === 0 ? undefined : stamps,
          });
      });
    });
    return this.inFlight.race(ref.ostId ?? 0, received);
  }

  async flush(ref: ObjectRef): Promise<void> {
    await this.ticketed(ref, (callOptions) =>
      this.inFlight.race(ref.ostId ?? 0, call(this.client, 'Flush', { ref }, callOptions)),
    );
  }

  abortOst(ostId: number, why: string): number {
    return this.inFlight.abortOst(ostId, ` at ${this.address}`, why);
  }

  close(): void {
    // The channel is the process's (ChannelCache); requests in flight run out their deadlines.
  }
}
