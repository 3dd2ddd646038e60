// A client's connection to the MDS's framed path (common/mds-frames.ts,
// mds/frame-server.ts): OpenMany and StatMany, and lone Opens and Stats, as
// frames on one TCP (or TLS) connection, pipelined, beside the gRPC channel. The MDS runs the same
// handler either way; the frame carries the same message and the same
// metadata (signature, job tag), and the answer's tickets are kept as gRPC's
// are. When the path cannot be reached (no port in GetMap, a refused or broken
// connection, a connect that does not finish, an answer that does not come)
// a call goes over gRPC instead, and the path is tried again after a rest that
// doubles with each failure in a row; calls in flight on a connection that
// broke are sent again over gRPC (both methods only read).
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { StripeError } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
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

/**
 * The buffer a plain connection reads into, reused for every read: headers, small answers and the
 * first bytes of a large one, which are copied out of it into their answer's buffer.
 */
const READ_BUFFER_BYTES = 64 * 1024;
/** The rest of an answer at least this long is read straight into its buffer (no copy). */
const READ_IN_PLACE_BYTES_MIN = 16 * 1024;

/** How long the framed path rests after it could not be reached; doubled for each failure in a row. */
export const FRAME_RETRY_MS = 2_000;

/** When the framed path gives up on a connection and sends its calls over gRPC instead, and how long it rests. */
export interface FrameTimeouts {
  /**
   * A connect (and TLS handshake) not done by then: a port a firewall drops silently would
   * otherwise hold the calls until TCP gives up, minutes later.
   */
  connectMs: number;
  /**
   * No byte from the MDS for this long while a call waits: a connection cut without a reset (a
   * partition) or an MDS that stopped. As generous as gRPC's keepalive timeout, since a server
   * starved of CPU for seconds is not a dead link.
   */
  silentMs: number;
  /** The first rest after a failure (FRAME_RETRY_MS), doubled for each failure in a row up to restMaxMs. */
  restMs: number;
  /** The longest rest: a port a firewall drops is tried about once a minute. */
  restMaxMs: number;
}

export const FRAME_TIMEOUTS: FrameTimeouts = {
  connectMs: 5_000,
  silentMs: LIMITS.grpcKeepaliveTimeoutMs,
  restMs: FRAME_RETRY_MS,
  restMaxMs: 60_000,
};

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
  /** Failures in a row since the last answer (each doubles the rest). */
  private failuresInRow = 0;
  /** The rest taken after the latest failure (0: none yet). */
  lastRestMs = 0;
  /** Fires when calls wait and the MDS has sent nothing for silentMs. */
  private silence: NodeJS.Timeout | undefined;
  private closed = false;
  /** Calls answered over the framed path, and calls sent over gRPC because it was out of reach. */
  calls = 0;
  fallbacks = 0;
  /** Answer bytes copied out of the read buffer, and read straight into their answer (closed connections included). */
  private bytesBefore = { copied: 0, inPlace: 0 };
  private reader: FrameReader | undefined;
  private readonly unservedMethods = new Set<FramedMethod>();

  constructor(
    private readonly mdsAddress: string,
    private readonly tls: TlsSource,
    /** The metadata pairs of one call of `path` (signature, job tag): asked once per call. */
    private readonly metaOf: (path: string) => [string, string][],
    /** Asked when the path broke: GetMap again, for the port of an MDS that came back. */
    private readonly relearn: () => void,
    private readonly timeouts: FrameTimeouts = FRAME_TIMEOUTS,
  ) {}

  /** The port GetMap told (0: none). */
  setPort(port: number): void {
    if (port === this.port) return;
    this.port = port;
    this.unservedMethods.clear();
    this.restUntilMs = 0;
    this.drop(new FrameUnavailable('the MDS moved its framed path'));
  }

  /** Whether the MDS serves `method` on its framed path (all do but older MDSs' lone Open and Stat). */
  serves(method: FramedMethod): boolean {
    return !this.unservedMethods.has(method);
  }

  /** The MDS refused `method` as one its framed path does not serve; forgotten with its port. */
  unserved(method: FramedMethod): void {
    this.unservedMethods.add(method);
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
      // The connection keeps the process alive, and must keep answering, only while a call waits on it.
      if (this.pending.size === 0) {
        socket.ref();
        this.listen(socket);
      }
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

  /** Answer bytes copied out of the read buffer, and read straight into their answer's buffer. */
  get answerBytes(): { copied: number; inPlace: number } {
    return {
      copied: this.bytesBefore.copied + (this.reader?.copiedBytes ?? 0),
      inPlace: this.bytesBefore.inPlace + (this.reader?.landedBytes ?? 0),
    };
  }

  /** The counts of the connection's reader are kept when a new connection replaces it. */
  private retire(): void {
    this.bytesBefore = this.answerBytes;
    this.reader = undefined;
  }

  close(): void {
    this.closed = true;
    this.drop(new FrameUnavailable('client closed'));
  }

  private connection(): Socket {
    if (this.socket) return this.socket;
    const host = hostOf(this.mdsAddress);
    const tls = bulkClientTls(this.tls);
    this.retire();
    const reader = new FrameReader(FRAME_RESPONSE_MAGIC, (header, body) => this.answered(header, body));
    this.reader = reader;
    const take = (read: () => void): void => {
      this.silence?.refresh();
      try {
        read();
      } catch (err) {
        this.broke(socket, err);
      }
    };
    // Plain TCP reads into one reused buffer, or straight into the rest of a large answer's own
    // buffer (node asks `buffer` for each read's target); TLS as chunks.
    const shared = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const socket: Socket = tls
      ? tlsConnect({ host, port: this.port, ...tls }).on('data', (chunk: Buffer) =>
          take(() => reader.push(chunk, 0, chunk.length)),
        )
      : netConnect({
          host,
          port: this.port,
          noDelay: true,
          onread: {
            buffer: () => reader.target(READ_IN_PLACE_BYTES_MIN) ?? shared,
            callback: (bytes, buf) => {
              take(() => (buf === shared ? reader.push(shared, 0, bytes) : reader.landed(bytes)));
              return true;
            },
          },
        });
    socket.setNoDelay(true);
    this.socket = socket;
    const connectTimer = setTimeout(
      () => this.broke(socket, new Error(`no connection within ${this.timeouts.connectMs} ms`)),
      this.timeouts.connectMs,
    );
    connectTimer.unref();
    socket.once(tls ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    socket.once('close', () => clearTimeout(connectTimer));
    socket.on('error', (err) => this.broke(socket, err));
    socket.on('close', () => this.broke(socket, new Error('connection closed')));
    return socket;
  }

  /** While calls wait, the MDS must send something at least every silentMs (bytes of any answer). */
  private listen(socket: Socket): void {
    this.stopListening();
    this.silence = setTimeout(
      () => this.broke(socket, new Error(`no answer for ${this.timeouts.silentMs} ms while calls waited`)),
      this.timeouts.silentMs,
    );
    this.silence.unref();
  }

  private stopListening(): void {
    clearTimeout(this.silence);
    this.silence = undefined;
  }

  private answered(header: FrameHeader, body: Buffer): void {
    const waiter = this.pending.get(header.callId);
    if (!waiter) return;
    this.pending.delete(header.callId);
    this.failuresInRow = 0;
    if (this.pending.size === 0) {
      this.socket?.unref();
      this.stopListening();
    }
    if (header.kind === FrameStatus.ok) {
      this.calls++;
      waiter.resolve(body);
    } else waiter.reject(decodeFrameError(body));
  }

  /** The connection failed: its calls go over gRPC, and the path rests a while. */
  private broke(socket: Socket, err: unknown): void {
    if (this.socket !== socket) return;
    const rest = Math.min(this.timeouts.restMs * 2 ** this.failuresInRow, this.timeouts.restMaxMs);
    this.failuresInRow++;
    this.lastRestMs = rest;
    this.restUntilMs = performance.now() + rest;
    const why = err instanceof Error ? err.message : String(err);
    this.drop(new FrameUnavailable(`MDS framed path at port ${this.port}: ${why}`));
    if (!this.closed) this.relearn();
  }

  private drop(err: FrameUnavailable): void {
    const socket = this.socket;
    this.socket = undefined;
    this.stopListening();
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
  if (frames.usable && frames.serves(method)) {
    try {
      return decode(await frames.call(method, path, request()));
    } catch (err) {
      if (unservedMethod(err)) frames.unserved(method);
      else if (!(err instanceof FrameUnavailable)) throw err;
    }
  }
  frames.fallbacks++;
  return grpc();
}

/**
 * The MDS's refusal of a frame whose method its framed path does not serve (an MDS from before
 * lone Open and Stat were framed): that method goes over gRPC to it from then on.
 */
function unservedMethod(err: unknown): boolean {
  return (
    err instanceof StripeError &&
    err.code === 'REQ_INVALID' &&
    /^MDS frame: no method \d+ here$/.test(err.message)
  );
}
