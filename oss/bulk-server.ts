// The OSS end of the bulk data path (common/bulk/frame.ts): a plain TCP
// server, one request at a time per connection, reading write segments with
// backpressure (SocketReader) and sending read segments as the socket drains.
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { crc32cCombine } from '../common/bulk/crc-combine.js';
import {
  type BulkRequest,
  decodeRequest,
  decodeSegmentHeader,
  encodeErrorResponse,
  encodeOkResponse,
  encodeSegmentHeader,
  REQUEST_FIXED_BYTES,
  requestIdBytes,
  SEGMENT_ABORT,
  SEGMENT_BYTES_MAX,
  SEGMENT_HEADER_BYTES,
} from '../common/bulk/frame.js';
import { decodeHello, helloTextBytes, isHello } from '../common/bulk/hello.js';
import type { SegmentRun, SocketReader } from '../common/bulk/socket-reader.js';
import { decodeTicketFrame, isTicketFrame, ticketTextBytes } from '../common/bulk/ticket-frame.js';
import { StripeError } from '../common/errors.js';
import type { RequestTag } from '../common/jobs/job-id.js';
import { type ListeningServer, listenTcp } from '../common/tcp-listen.js';
import { bulkServerTls } from '../common/tls.js';
import { DATA_BUFFER_BYTES, dataBuffers } from './buffers.js';
import { type Adopt, adoptPlain } from './bulk-socket.js';
import { BULK_CONNECTIONS_MAX } from './limits.js';
import type { OssCore } from './ops.js';
import type { WritePiece, WriteResult } from './store/index.js';
import type { TicketGuard } from './tickets.js';

/**
 * A request, with the job and session its connection's hello named (none: untagged) and the
 * connection's current ticket (common/bulk/ticket-frame.ts; none: no ticket frame yet).
 */
type TaggedRequest = BulkRequest & {
  tag?: RequestTag | undefined;
  ticket?: string | undefined;
  /** Why its ticket does not allow it (a write's segments are then read and dropped, as for a failed write). */
  refusal?: StripeError | undefined;
};

/** The ticket's coded refusal of `req`; undefined when it is allowed or the OSS checks no tickets. */
function ticketRefusal(
  tickets: TicketGuard | undefined,
  req: TaggedRequest,
  address: string | undefined,
): StripeError | undefined {
  try {
    tickets?.check(req.ticket, req.ref.objectId, req.op, 'bulk', { address, op: `bulk ${req.op}` });
    return undefined;
  } catch (err) {
    return asStripe(err);
  }
}

/** The stream is out of step with the framing: answer once and close. */
class FramingError extends StripeError {}

function asStripe(err: unknown): StripeError {
  return err instanceof StripeError
    ? err
    : new StripeError('REQ_INTERNAL', err instanceof Error ? err.message : String(err));
}

function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

async function handleWrite(
  core: OssCore,
  socket: Socket,
  reader: SocketReader,
  req: TaggedRequest,
): Promise<void> {
  let remaining = req.length;
  /** A segment whose header was read but whose bytes were not (it did not fit the last buffer). */
  let pending: { length: number; crc: number } | undefined;
  /**
   * Segments land straight from the socket in pooled 1 MiB buffers (the only
   * copy on this side, no buffer per socket read); a buffer of whole
   * segments goes on as one piece whose crc is combined from the segments'
   * crcs, verified once by the store's write, and written to the file as it is.
   */
  async function* body(): AsyncGenerator<WritePiece> {
    while (remaining > 0) {
      const large = pending !== undefined && pending.length > DATA_BUFFER_BYTES;
      const whole = large ? Buffer.allocUnsafe((pending as { length: number }).length) : dataBuffers.take();
      const give = (): void => {
        if (!large) dataBuffers.give(whole);
      };
      const out = large ? whole : whole.subarray(0, Math.min(DATA_BUFFER_BYTES, remaining));
      let crc = 0;
      let run: SegmentRun;
      try {
        run = await reader.readSegmentRun(
          out,
          remaining,
          (start, length, segmentCrc) => {
            crc = start === 0 ? segmentCrc : crc32cCombine(crc, segmentCrc, length);
          },
          pending,
        );
      } catch (err) {
        give();
        if (err instanceof StripeError && err.code === 'REQ_INVALID')
          throw new FramingError(err.code, err.message);
        throw err;
      }
      pending = run.pending;
      remaining -= run.filled;
      if (run.aborted) {
        give();
        throw new FramingError('REQ_INVALID', 'the client aborted the write');
      }
      if (run.filled === 0) {
        give(); // the pending segment is larger than a pooled buffer: the next round allocates its size
        continue;
      }
      yield { data: out.subarray(0, run.filled), crc, release: give };
    }
  }
  try {
    const res = await writeRequest(core, req, body());
    socket.write(encodeOkResponse(res.objectSize, res.version, 0, { durable: res.durable === true }));
  } catch (err) {
    if (err instanceof FramingError) throw err;
    // Keep the connection in step: consume the segments the client is still sending.
    if (pending) {
      await reader.readExact(pending.length);
      remaining -= pending.length;
      pending = undefined;
    }
    while (remaining > 0) {
      const seg = decodeSegmentHeader(await reader.readExact(SEGMENT_HEADER_BYTES));
      if (seg.abort) break;
      if (seg.length === 0 || seg.length > remaining)
        throw new FramingError('REQ_INVALID', 'bad segment length');
      await reader.readExact(seg.length);
      remaining -= seg.length;
    }
    const e = asStripe(err);
    socket.write(encodeErrorResponse(e.code, e.message));
  }
}

/**
 * Joins whole checksum blocks of one disk span into segments of up to `unit` bytes that never
 * cross a multiple of it from the request offset (common/bulk/frame.ts); their crcs are combined,
 * not recomputed. Without a unit each block is its own segment.
 */
class SegmentJoiner {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingCrc = 0;
  private sentBytes = 0;

  constructor(
    private readonly socket: Socket,
    private readonly unit: number,
  ) {}

  /** Adds one block; false once the socket wants a drain. `release` returns the span's buffer. */
  add(piece: { data: Buffer; crc: number }, spanEnd: boolean, release?: () => void): boolean {
    const { unit } = this;
    const length = piece.data.length;
    let more = true;
    // A segment ends before a piece that would take it past a multiple of the unit.
    if (this.pendingBytes > 0 && unit > 0) {
      const start = this.sentBytes + this.pendingBytes;
      if (Math.floor(start / unit) !== Math.floor((start + length - 1) / unit)) this.send();
    }
    this.pendingCrc = this.pendingBytes === 0 ? piece.crc : crc32cCombine(this.pendingCrc, piece.crc, length);
    // Blocks that lie back to back in the span's buffer go out as one view: one write, not 16.
    const last = this.pending[this.pending.length - 1];
    const data = piece.data;
    if (
      last !== undefined &&
      last.buffer === data.buffer &&
      last.byteOffset + last.length === data.byteOffset
    )
      this.pending[this.pending.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + length);
    else this.pending.push(data);
    this.pendingBytes += length;
    const atBoundary = unit === 0 || (this.sentBytes + this.pendingBytes) % unit === 0;
    if (spanEnd || atBoundary || this.pendingBytes >= SEGMENT_BYTES_MAX)
      more = this.send(spanEnd ? release : undefined);
    return more;
  }

  private send(release?: () => void): boolean {
    const { socket, pending } = this;
    socket.write(encodeSegmentHeader(this.pendingBytes, this.pendingCrc));
    let more = true;
    pending.forEach((data, i) => {
      more = release && i === pending.length - 1 ? socket.write(data, () => release()) : socket.write(data);
    });
    this.sentBytes += this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    return more;
  }
}

async function handleRead(core: OssCore, socket: Socket, req: TaggedRequest): Promise<void> {
  let headerSent = false;
  /** The answer's header, held until the first span leaves with it in one writev (a small read: one write). */
  let header: Buffer | undefined;
  const sendHeader = (): void => {
    if (!header) return;
    socket.write(header);
    header = undefined;
    headerSent = true;
  };
  let corked = false;
  const segments = new SegmentJoiner(socket, req.segmentBytes ?? 0);
  try {
    await core.read(
      req.ref,
      req.offset,
      req.length,
      (objectSize, stamps) => {
        const body = Math.max(0, Math.min(objectSize, req.offset + req.length) - req.offset);
        header = encodeOkResponse(objectSize, 0, body, { stamps: req.wantStamps ? stamps : undefined });
      },
      async (pieces) => {
        // The segments of one disk span (oss.readSpanBytes, 2 MiB) leave in one writev; the span's buffer
        // goes back to the pool once the socket has handed its bytes to the kernel.
        socket.cork();
        corked = true;
        sendHeader();
        let more = true;
        for (const [i, piece] of pieces.entries()) {
          const spanEnd = i === pieces.length - 1;
          more = segments.add(piece, spanEnd, piece.release) && more;
        }
        corked = false;
        socket.uncork();
        if (!more && socket.writableNeedDrain) await drained(socket);
        if (socket.destroyed) throw new StripeError('REQ_UNAVAILABLE', 'bulk client went away');
      },
      { readerVerifies: req.readerVerifies === true, tag: req.tag },
    );
    // Nothing to read (an empty object or range): the header alone.
    sendHeader();
  } catch (err) {
    if (corked) socket.uncork();
    const e = asStripe(err);
    if (headerSent) socket.write(encodeSegmentHeader(SEGMENT_ABORT, 0));
    socket.write(encodeErrorResponse(e.code, e.message));
  }
}

async function serveConnection(
  core: OssCore,
  socket: Socket,
  reader: SocketReader,
  tickets: TicketGuard | undefined,
): Promise<void> {
  /** The job and session of the connection's hello (common/bulk/hello.ts); none: untagged. */
  let tag: RequestTag | undefined;
  /** The ticket of the connection's last ticket frame. */
  let ticket: string | undefined;
  try {
    for (;;) {
      const fixed = await reader.readExact(REQUEST_FIXED_BYTES);
      let req: TaggedRequest;
      try {
        if (isHello(fixed)) {
          tag = decodeHello(await reader.readExact(helloTextBytes(fixed)));
          continue;
        }
        if (isTicketFrame(fixed)) {
          ticket = decodeTicketFrame(await reader.readExact(ticketTextBytes(fixed)));
          continue;
        }
        req = { ...decodeRequest(fixed, await reader.readExact(requestIdBytes(fixed))), tag, ticket };
      } catch (err) {
        throw new FramingError(asStripe(err).code, asStripe(err).message);
      }
      const refusal = ticketRefusal(tickets, req, socket.remoteAddress);
      if (req.op === 'write') await handleWrite(core, socket, reader, { ...req, refusal });
      else if (refusal) socket.write(encodeErrorResponse(refusal.code, refusal.message));
      else await handleRead(core, socket, req);
    }
  } catch (err) {
    if (err instanceof FramingError && !socket.destroyed)
      socket.end(encodeErrorResponse(err.code, err.message));
    else socket.destroy();
  }
}

export type BulkServer = ListeningServer;

/**
 * `adopt` takes over each accepted connection (oss/bulk-socket.ts: the user-buffer or the plain
 * path); with `tickets`, every request's ticket is checked.
 */
export async function startBulkServer(
  core: OssCore,
  host: string,
  port: number,
  adopt: Adopt,
  tickets?: TicketGuard,
): Promise<BulkServer> {
  const sockets = new Set<Socket>();
  const serve = (accepted: Socket, adoptIt: Adopt): void => {
    // Adopted sockets leave the server's own count, so the limit is kept here.
    if (sockets.size >= BULK_CONNECTIONS_MAX) {
      accepted.destroy();
      return;
    }
    const { socket, reader } = adoptIt(accepted);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    void serveConnection(core, socket, reader, tickets);
  };
  const tls = bulkServerTls();
  // TLS (common/tls.ts): the decrypted stream, read plainly. Else accepted connections start
  // paused, so the adopted socket sees every byte.
  const server: Server = tls
    ? createTlsServer(tls, (accepted) => {
        accepted.setNoDelay(true);
        serve(accepted, adoptPlain);
      })
    : createServer({ noDelay: true, pauseOnConnect: true }, (accepted) => serve(accepted, adopt));
  server.maxConnections = BULK_CONNECTIONS_MAX;
  return listenTcp(server, host, port, sockets, 'bulk server');
}

/** The write a request asks for, with its version stamp when the client sent one. */
function writeRequest(
  core: OssCore,
  req: TaggedRequest,
  pieces: AsyncIterable<WritePiece>,
): Promise<WriteResult> {
  if (req.refusal) return Promise.reject(req.refusal);
  const stamp = req.version ? { stamp: req.version } : {};
  return core.write(req.ref, req.offset, req.length, req.crc32c, req.truncate, pieces, req.tag, stamp, {
    sync: req.sync === true,
  });
}
