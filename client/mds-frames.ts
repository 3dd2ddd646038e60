// A client's connection to the MDS's framed path (common/mds-frames.ts,
// mds/frame-server.ts): OpenMany and StatMany as frames on one TCP (or TLS)
// connection, pipelined, beside the gRPC channel. The MDS runs the same
// handler either way; the frame carries the same message and the same
// metadata (signature, job tag), and the answer's tickets are kept as gRPC's
// are. When the path cannot be reached (no port in GetMap, a refused or broken
// connection) a call goes over gRPC instead, and the path is tried again after
// FRAME_RETRY_MS; calls in flight on a connection that broke are sent again
// over gRPC (both methods only read).
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import {
  decodeFrameError,
  encodeFrameHeader,
  encodeMeta,
  FRAME_REQUEST_MAGIC,
  FRAME_RESPONSE_MAGIC,
  FRAMED_METHODS,
  type FramedMethod,
  type FrameHeader,
  FrameReader,
  FrameStatus,
} from '../common/mds-frames.js';
import { bulkClientTls, type TlsSource } from '../common/tls.js';

/** The buffer a plain connection reads into, reused for every read. */
const READ_BUFFER_BYTES = 256 * 1024;

/** How long the framed path rests after it could not be reached. */
export const FRAME_RETRY_MS = 2_000;

/** The framed path could not carry a call (the caller sends it over gRPC). */
export class FrameUnavailable extends Error {}

interface Pending {
  resolve: (body: Buffer) => void;
  reject: (err: unknown) => void;
}

/** "host:port" or "[v6]:port" -> host. */
function hostOf(address: string): string {
  const at = address.lastIndexOf(':');
  const host = at >= 0 ? address.slice(0, at) : address;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export class MdsFrameChannel {
  private port = 0;
  private socket: Socket | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextCallId = 1;
  private restUntilMs = 0;
  private closed = false;
  /** Calls answered over the framed path, and calls sent over gRPC because it was out of reach. */
  calls = 0;
  fallbacks = 0;

  constructor(
    private readonly mdsAddress: string,
    private readonly tls: TlsSource,
    /** The metadata pairs of one call of `path` (signature, job tag): asked once per call. */
    private readonly metaOf: (path: string) => [string, string][],
    /** Asked when the path broke: GetMap again, for the port of an MDS that came back. */
    private readonly relearn: () => void,
  ) {}

  /** The port GetMap told (0: none). */
  setPort(port: number): void {
    if (port === this.port) return;
    this.port = port;
    this.restUntilMs = 0;
    this.drop(new FrameUnavailable('the MDS moved its framed path'));
  }

  /** Whether a call now should try the framed path. */
  get usable(): boolean {
    return !this.closed && this.port > 0 && performance.now() >= this.restUntilMs;
  }

  /** The answer's body of one call; FrameUnavailable when the path could not carry it. */
  call(method: FramedMethod, path: string, body: Buffer): Promise<Buffer> {
    const socket = this.connection();
    const callId = this.nextCallId;
    this.nextCallId = (this.nextCallId % 0xffff_fffe) + 1;
    const meta = encodeMeta(this.metaOf(path));
    return new Promise<Buffer>((resolve, reject) => {
      // The connection keeps the process alive only while a call waits on it.
      if (this.pending.size === 0) socket.ref();
      this.pending.set(callId, { resolve, reject });
      socket.cork();
      socket.write(
        encodeFrameHeader({
          magic: FRAME_REQUEST_MAGIC,
          kind: FRAMED_METHODS[method],
          metaBytes: meta.length,
          callId,
          bodyBytes: body.length,
        }),
      );
      socket.write(meta);
      socket.write(body);
      socket.uncork();
    });
  }

  close(): void {
    this.closed = true;
    this.drop(new FrameUnavailable('client closed'));
  }

  private connection(): Socket {
    if (this.socket) return this.socket;
    const host = hostOf(this.mdsAddress);
    const tls = bulkClientTls(this.tls);
    const reader = new FrameReader(FRAME_RESPONSE_MAGIC, (header, body) => this.answered(header, body));
    const take = (buf: Buffer, bytes: number): void => {
      try {
        reader.push(buf, 0, bytes);
      } catch (err) {
        this.broke(socket, err);
      }
    };
    // Plain TCP reads into one reused buffer (each answer copied once, into its own); TLS as chunks.
    const socket: Socket = tls
      ? tlsConnect({ host, port: this.port, ...tls }).on('data', (chunk: Buffer) => take(chunk, chunk.length))
      : netConnect({
          host,
          port: this.port,
          noDelay: true,
          onread: {
            buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
            callback: (bytes, buf) => {
              take(buf as Buffer, bytes);
              return true;
            },
          },
        });
    socket.setNoDelay(true);
    this.socket = socket;
    socket.on('error', (err) => this.broke(socket, err));
    socket.on('close', () => this.broke(socket, new Error('connection closed')));
    return socket;
  }

  private answered(header: FrameHeader, body: Buffer): void {
    const waiter = this.pending.get(header.callId);
    if (!waiter) return;
    this.pending.delete(header.callId);
    if (this.pending.size === 0) this.socket?.unref();
    if (header.kind === FrameStatus.ok) {
      this.calls++;
      waiter.resolve(body);
    } else waiter.reject(decodeFrameError(body));
  }

  /** The connection failed: its calls go over gRPC, and the path rests a while. */
  private broke(socket: Socket, err: unknown): void {
    if (this.socket !== socket) return;
    this.restUntilMs = performance.now() + FRAME_RETRY_MS;
    const why = err instanceof Error ? err.message : String(err);
    this.drop(new FrameUnavailable(`MDS framed path at port ${this.port}: ${why}`));
    if (!this.closed) this.relearn();
  }

  private drop(err: FrameUnavailable): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const waiter of waiting) waiter.reject(err);
  }
}

/** A framed call's answer, or the same call over gRPC when the framed path could not carry it. */
export async function framedOr<T>(
  frames: MdsFrameChannel,
  method: FramedMethod,
  path: string,
  request: () => Buffer,
  decode: (body: Buffer) => T,
  grpc: () => Promise<T>,
): Promise<T> {
  if (frames.usable) {
    try {
      return decode(await frames.call(method, path, request()));
    } catch (err) {
      if (!(err instanceof FrameUnavailable)) throw err;
    }
  }
  frames.fallbacks++;
  return grpc();
}
