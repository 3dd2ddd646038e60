// The OSS end of the bulk data path (common/bulk/frame.ts): a plain TCP
// server, one request at a time per connection, reading write segments with
// backpressure (SocketReader) and sending read segments as the socket drains.
import { createServer, type Server, type Socket } from 'node:net';
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
  SEGMENT_HEADER_BYTES,
} from '../common/bulk/frame.js';
import { SocketReader } from '../common/bulk/socket-reader.js';
import { StripeError } from '../common/errors.js';
import { DATA_BUFFER_BYTES, dataBuffers } from './buffers.js';
import { BULK_CONNECTIONS_MAX, BULK_SERVER_HIGH_WATER_BYTES } from './limits.js';
import type { OssCore } from './ops.js';
import type { WritePiece } from './ost-write.js';

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
  req: BulkRequest,
): Promise<void> {
  let remaining = req.length;
  /**
   * Segments are copied from the socket straight into pooled 1 MiB staging
   * buffers (the only copy on this side); a full buffer goes on as one piece
   * whose crc is combined from the segments' crcs, verified once in
   * writeObject, and written to the file as it is.
   */
  async function* pieces(): AsyncGenerator<WritePiece> {
    let staging: Buffer | undefined;
    let fill = 0;
    let crc = 0;
    const piece = (): WritePiece => {
      const whole = staging as Buffer;
      const out: WritePiece = { data: whole.subarray(0, fill), crc, release: () => dataBuffers.give(whole) };
      staging = undefined;
      fill = 0;
      return out;
    };
    try {
      while (remaining > 0) {
        const seg = decodeSegmentHeader(await reader.readExact(SEGMENT_HEADER_BYTES));
        if (seg.abort) throw new FramingError('REQ_INVALID', 'the client aborted the write');
        if (seg.length === 0 || seg.length > remaining)
          throw new FramingError('REQ_INVALID', `bad segment length ${seg.length}`);
        if (staging && fill + seg.length > DATA_BUFFER_BYTES) yield piece();
        if (seg.length > DATA_BUFFER_BYTES) {
          const data = await reader.readExact(seg.length);
          remaining -= seg.length;
          yield { data, crc: seg.crc };
          continue;
        }
        staging ??= dataBuffers.take();
        await reader.readInto(staging, fill, seg.length);
        crc = fill === 0 ? seg.crc : crc32cCombine(crc, seg.crc, seg.length);
        fill += seg.length;
        remaining -= seg.length;
        if (fill === DATA_BUFFER_BYTES || remaining === 0) yield piece();
      }
    } finally {
      // Not handed on (an error): nothing else holds it.
      if (staging) dataBuffers.give(staging);
    }
  }
  try {
    const res = await core.write(req.ref, req.offset, req.length, req.crc32c, req.truncate, pieces());
    socket.write(encodeOkResponse(res.objectSize, res.version, 0));
  } catch (err) {
    if (err instanceof FramingError) throw err;
    // Keep the connection in step: consume the segments the client is still sending.
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

async function handleRead(core: OssCore, socket: Socket, req: BulkRequest): Promise<void> {
  let headerSent = false;
  let corked = false;
  try {
    await core.read(
      req.ref,
      req.offset,
      req.length,
      (objectSize) => {
        const body = Math.max(0, Math.min(objectSize, req.offset + req.length) - req.offset);
        socket.write(encodeOkResponse(objectSize, 0, body));
        headerSent = true;
      },
      async (piece) => {
        // The pieces of one disk span (1 MiB) leave in one writev; the span's buffer
        // goes back to the pool once the socket has handed its bytes to the kernel.
        if (!corked) {
          socket.cork();
          corked = true;
        }
        socket.write(encodeSegmentHeader(piece.data.length, piece.crc));
        const release = piece.release;
        const more = release ? socket.write(piece.data, () => release()) : socket.write(piece.data);
        if (piece.spanEnd === false) return; // more pieces of this span follow
        corked = false;
        socket.uncork();
        if (!more && socket.writableNeedDrain) await drained(socket);
        if (socket.destroyed) throw new StripeError('REQ_UNAVAILABLE', 'bulk client went away');
      },
    );
    if (corked) {
      corked = false;
      socket.uncork();
    }
  } catch (err) {
    if (corked) socket.uncork();
    const e = asStripe(err);
    if (headerSent) socket.write(encodeSegmentHeader(SEGMENT_ABORT, 0));
    socket.write(encodeErrorResponse(e.code, e.message));
  }
}

async function serveConnection(core: OssCore, socket: Socket): Promise<void> {
  const reader = new SocketReader(socket, BULK_SERVER_HIGH_WATER_BYTES);
  try {
    for (;;) {
      const fixed = await reader.readExact(REQUEST_FIXED_BYTES);
      let req: BulkRequest;
      try {
        req = decodeRequest(fixed, await reader.readExact(requestIdBytes(fixed)));
      } catch (err) {
        throw new FramingError(asStripe(err).code, asStripe(err).message);
      }
      if (req.op === 'write') await handleWrite(core, socket, reader, req);
      else await handleRead(core, socket, req);
    }
  } catch (err) {
    if (err instanceof FramingError && !socket.destroyed)
      socket.end(encodeErrorResponse(err.code, err.message));
    else socket.destroy();
  }
}

export interface BulkServer {
  port: number;
  close(): Promise<void>;
}

export async function startBulkServer(core: OssCore, host: string, port: number): Promise<BulkServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    void serveConnection(core, socket);
  });
  server.maxConnections = BULK_CONNECTIONS_MAX;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('bulk server has no port');
  return {
    port: address.port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
