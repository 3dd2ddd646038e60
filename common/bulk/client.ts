// The client side of the bulk data path: a bounded pool of TCP connections to
// one OSS, one request per connection at a time. Data is cut into segments
// at the object's checksum-block boundaries, each with its crc32c, so the OSS
// verifies and stores block crcs in one pass; reads are verified the same way
// on arrival (end to end: a corrupt read is never returned as data). Since the
// client checks every segment, the OSS need not check whole blocks first: one
// crc32c pass per byte read instead of two, and a failure is read again with
// the OSS's check to tell a corrupt disk block from a wire error.
import { connect, type Socket } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { type BlockStamps, partStamps } from '../block-stamps.js';
import { crc32c } from '../checksum.js';
import { StripeError } from '../errors.js';
import type { RequestTag } from '../jobs/job-id.js';
import { LIMITS } from '../limits.js';
import { OstRequests } from '../ost-requests.js';
import { Semaphore } from '../semaphore.js';
import { bulkClientTls, isCertificateError, type TlsSource } from '../tls.js';
import {
  type BulkRef,
  type BulkRequest,
  decodeErrorBody,
  decodeResponseHeader,
  decodeStampCount,
  decodeStamps,
  encodeRequest,
  encodeSegmentHeaders,
  type Pieces,
  piecesLength,
  piecesSlice,
  RESPONSE_FIXED_BYTES,
  SEGMENT_HEADER_BYTES,
  type SegmentChecksums,
  STAMP_BYTES,
  STAMP_COUNT_BYTES,
  segmentBounds,
  segmentChecksums,
} from './frame.js';
import { encodeHello } from './hello.js';
import { SocketReader } from './socket-reader.js';
import { encodeTicketFrame } from './ticket-frame.js';

export interface BulkClientOptions {
  /** TLS to the OSS (common/tls.ts; undefined: as this process is configured). */
  tls?: TlsSource;
  /** Connections kept to this OSS (and requests in flight) at most. */
  connectionsMax?: number;
  /** A request that has not finished by then fails with REQ_TIMEOUT. */
  timeoutMs?: number;
  /** Checksum block of the OSS (segments are cut on its boundaries). */
  blockBytes?: number;
  /**
   * Have the OSS check every block it reads as well (two crc32c passes per
   * byte). Off by default: this client checks every segment itself and asks
   * again with the OSS's check only when one fails.
   */
  ossChecksReads?: boolean;
  /** Called on each read asked for again with the OSS's check (see checksumRechecks). */
  onChecksumRecheck?: () => void;
  /**
   * Called when a read's answer begins: the milliseconds from sending the
   * request to its response header, which the OSS sends once the object is
   * open and its first span read (OST service time, whatever the length).
   */
  onReadAnswered?: (ref: BulkRef, ms: number) => void;
  /** The job and session of every request (job statistics): sent once per connection, in a hello. */
  tag?: RequestTag;
  /**
   * The data-path ticket for a request (undefined: none), asked before each one; sent in a ticket
   * frame (ticket-frame.ts) only when it differs from the last one sent on the connection.
   */
  ticketOf?: (objectId: string, access: 'read' | 'write') => TicketAnswer;
}

export type TicketAnswer = string | undefined | Promise<string | undefined>;

export const BULK_CONNECTIONS_DEFAULT = 16;
export const BULK_TIMEOUT_MS_DEFAULT = 30_000;
/** The reused buffer each connection's socket reads into when no body is being received (SocketReader.nextBuffer). */
export const BULK_SOCKET_READ_BYTES = 64 * 1024;
/** Bytes a connection buffers before it stops reading from the socket. */
export const BULK_READ_HIGH_WATER_BYTES = 8 * 1024 * 1024;

/**
 * A segment failed its crc here on a read the OSS did not check: the bytes
 * went wrong on its disk or on the wire, and a read with its check tells which.
 */
function failedHere(err: unknown): boolean {
  return err instanceof StripeError && err.code === 'OBJ_CHECKSUM' && err.details.uncheckedByOss === true;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

interface Connection {
  socket: Socket;
  reader: SocketReader;
  /** The ticket of the last ticket frame sent on this connection. */
  ticket?: string | undefined;
}

/** Sends `ticket` ahead of the next request unless the connection's current one is the same. */
function sendTicket(conn: Connection, ticket: string | undefined): void {
  if (ticket === undefined || ticket === conn.ticket) return;
  conn.socket.write(encodeTicketFrame(ticket));
  conn.ticket = ticket;
}

/**
 * A read request, with its ticket frame when the ticket changed, in one socket write: a small file's
 * read carries a ticket of its own, and two writes were two system calls waking the OSS twice.
 */
function sendRead(conn: Connection, ticket: string | undefined, request: BulkRequest): void {
  conn.socket.cork();
  sendTicket(conn, ticket);
  conn.socket.write(encodeRequest(request));
  conn.socket.uncork();
}

/** A read's bytes with the block stamps the OSS answered with (undefined: an OSS from before stamps). */
export interface StampedRead {
  data: Buffer;
  stamps: BlockStamps | undefined;
}

export interface BulkWriteResult {
  objectSize: number;
  version: number;
  /** A sync write whose flush held at the OSS (see the frame's sync flag). */
  durable: boolean;
}

/** A run's outcome: every part handed over, or the object ended first (`bodyBytes` of the run's bytes exist; no part handed over). */
export type RunResult = { complete: true } | { complete: false; bodyBytes: number };

/**
 * What one request got: a value, or the OSS's coded refusal. Either leaves the connection's
 * stream in step, so it is kept; anything thrown instead (a broken frame, a failed checksum, a
 * timeout) may not, and closes it.
 */
type Answer<T> = { ok: true; value: T } | { ok: false; error: StripeError };

export class BulkClient {
  private readonly idle: Connection[] = [];
  private readonly inFlight = new OstRequests();
  private readonly slots: Semaphore;
  private readonly timeoutMs: number;
  private readonly blockBytes: number;
  private readonly waiveOssCheck: boolean;
  private readonly onChecksumRecheck: () => void;
  private readonly onReadAnswered: (ref: BulkRef, ms: number) => void;
  private readonly ticketOf: (objectId: string, access: 'read' | 'write') => TicketAnswer;
  /** Sent first on every new connection (undefined: untagged). */
  private readonly hello: Buffer | undefined;
  private closed = false;
  private readonly host: string;
  private readonly port: number;
  /** Bytes of read bodies the kernel wrote straight into their destination (SocketReader.nextBuffer). */
  directReadBytes = 0;
  /** Segments of read bodies received, each verified on its own (fewer, larger ones cost less). */
  segmentsRead = 0;
  /**
   * Reads asked for again with the OSS's own check after a segment failed
   * here: the OSS then fails a block corrupt on its disk (and counts it), and
   * a wire error may not recur.
   */
  checksumRechecks = 0;
  /** Connections opened so far (kept ones are reused, so this grows only when one was closed or all are busy). */
  connectionsOpened = 0;

  private readonly tls: TlsSource;

  constructor(
    readonly address: string,
    opts: BulkClientOptions = {},
  ) {
    const colon = address.lastIndexOf(':');
    this.host = address.slice(0, colon).replace(/^\[|\]$/g, '');
    this.port = Number(address.slice(colon + 1));
    if (!Number.isInteger(this.port) || this.port <= 0) throw new Error(`bad bulk address ${address}`);
    this.slots = new Semaphore(opts.connectionsMax ?? BULK_CONNECTIONS_DEFAULT);
    this.timeoutMs = opts.timeoutMs ?? BULK_TIMEOUT_MS_DEFAULT;
    this.blockBytes = opts.blockBytes ?? LIMITS.checksumBlockBytes;
    this.waiveOssCheck = opts.ossChecksReads !== true;
    this.onChecksumRecheck = opts.onChecksumRecheck ?? (() => undefined);
    this.onReadAnswered = opts.onReadAnswered ?? (() => undefined);
    this.hello = opts.tag ? encodeHello(opts.tag) : undefined;
    this.ticketOf = opts.ticketOf ?? (() => undefined);
    this.tls = opts.tls;
  }

  /**
   * Writes `data` at `offset`. `checksums` (from segmentChecksums with this
   * client's block size) lets replicas and retries of one write share one
   * checksum pass; without it the segments are checksummed here.
   */
  async write(
    ref: BulkRef,
    offset: number,
    data: Pieces,
    dataCrc32c: number,
    opts: { truncate?: boolean; checksums?: SegmentChecksums; version?: number; sync?: boolean } = {},
  ): Promise<BulkWriteResult> {
    const length = piecesLength(data);
    const bounds = segmentBounds(offset, length, this.blockBytes);
    const given = opts.checksums;
    const crcs =
      given &&
      given.offset === offset &&
      given.blockBytes === this.blockBytes &&
      given.crcs.length === bounds.length
        ? given.crcs
        : segmentChecksums(data, offset, this.blockBytes).crcs;
    const headers = encodeSegmentHeaders(
      bounds.map(([start, end]) => end - start),
      crcs,
    );
    const ticket = await this.ticketOf(ref.objectId, 'write');
    return this.withConnection(ref.ostId, async (conn) => {
      const { socket } = conn;
      // One writev: the ticket when it changed, the request header, then segment header and data for each segment.
      socket.cork();
      sendTicket(conn, ticket);
      socket.write(
        encodeRequest({
          op: 'write',
          ref,
          offset,
          length,
          crc32c: dataCrc32c,
          truncate: !!opts.truncate,
          ...(opts.version ? { version: opts.version } : {}),
          ...(opts.sync ? { sync: true } : {}),
        }),
      );
      for (let i = 0; i < bounds.length; i++) {
        const [start, end] = bounds[i] as [number, number];
        socket.write(headers.subarray(i * SEGMENT_HEADER_BYTES, (i + 1) * SEGMENT_HEADER_BYTES));
        for (const slice of piecesSlice(data, start, end)) socket.write(slice);
      }
      socket.uncork();
      const header = await this.readHeader(conn);
      if (!header.ok) return header;
      const { objectSize, version, durable } = header.value;
      return { ok: true, value: { objectSize, version, durable: opts.sync === true && durable } };
    });
  }

  /**
   * `alloc` supplies the buffer the body lands in (a block pool); by default
   * a fresh one. The OSS sends whole blocks unchecked, since every segment is
   * checked here; a segment that fails is asked for again with the OSS's own
   * check (see checksumRechecks). The buffer of the failed attempt is not
   * handed back to `alloc`'s pool: the collector takes it.
   */
  async read(
    ref: BulkRef,
    offset: number,
    length: number,
    alloc: (bytes: number) => Buffer = Buffer.allocUnsafe,
  ): Promise<Buffer> {
    return (await this.readStamped(ref, offset, length, alloc)).data;
  }

  /** read(), with the block stamps of what it returns (common/block-stamps.ts). */
  async readStamped(
    ref: BulkRef,
    offset: number,
    length: number,
    alloc: (bytes: number) => Buffer = Buffer.allocUnsafe,
  ): Promise<StampedRead> {
    try {
      return await this.readOnce(ref, offset, length, alloc, this.waiveOssCheck);
    } catch (err) {
      this.recheckOrThrow(err);
      return this.readOnce(ref, offset, length, alloc, false);
    }
  }

  /** Rethrows `err` unless it calls for a read with the OSS's check (failedHere), which it counts. */
  private recheckOrThrow(err: unknown): void {
    if (!failedHere(err)) throw err;
    this.checksumRechecks++;
    this.onChecksumRecheck();
  }

  private async readOnce(
    ref: BulkRef,
    offset: number,
    length: number,
    alloc: (bytes: number) => Buffer,
    readerVerifies: boolean,
  ): Promise<StampedRead> {
    const ticket = await this.ticketOf(ref.objectId, 'read');
    return this.withConnection(ref.ostId, async (conn): Promise<Answer<StampedRead>> => {
      const asked = await this.askRead(conn, ticket, ref, offset, length, length, readerVerifies);
      if (!asked.ok) return asked;
      const { bodyBytes, stamps } = asked.value;
      const out = alloc(bodyBytes);
      const directBefore = conn.reader.directBytes;
      // Segments land in `out` as they arrive (mostly written there by the kernel) and are verified there.
      const complete = await this.receive(conn, ref, offset, out, readerVerifies);
      this.directReadBytes += conn.reader.directBytes - directBefore;
      if (!complete) return this.errorAfterAbort(conn);
      return { ok: true, value: { data: out, stamps } };
    });
  }

  /**
   * Sends a read of `length` bytes from `offset` (its stamps asked for) and reads the answer's
   * header and block stamps: what follows is `bodyBytes` of data in segments, or nothing on an error.
   */
  private async askRead(
    conn: Connection,
    ticket: string | undefined,
    ref: BulkRef,
    offset: number,
    length: number,
    segmentBytes: number,
    readerVerifies: boolean,
  ): Promise<Answer<{ bodyBytes: number; stamps: BlockStamps | undefined }>> {
    const sent = performance.now();
    sendRead(conn, ticket, {
      op: 'read',
      ref,
      offset,
      length,
      crc32c: 0,
      truncate: false,
      segmentBytes,
      readerVerifies,
      wantStamps: true,
    });
    const header = await this.readHeader(conn);
    if (!header.ok) return header;
    this.onReadAnswered(ref, performance.now() - sent);
    const { bodyBytes } = header.value;
    if (bodyBytes > length) throw new StripeError('REQ_INTERNAL', 'bulk: more data than asked for');
    return { ok: true, value: { bodyBytes, stamps: await this.readStamps(conn, header.value.stamped) } };
  }

  /** The block stamps after a header that has them (an OSS from before stamps sends none: unknown, all 0). */
  private async readStamps(conn: Connection, stamped: boolean): Promise<BlockStamps | undefined> {
    if (!stamped) return undefined;
    const count = decodeStampCount(await conn.reader.readExact(STAMP_COUNT_BYTES));
    return count === 0 ? [] : decodeStamps(await conn.reader.readExact(count * STAMP_BYTES));
  }

  /**
   * Reads `lengths` back to back from `offset` in one request, each part into
   * its own buffer from `alloc`, handing each to `onPart` as soon as all its
   * segments arrived and were verified. Every segment must fall inside one
   * part (the caller cuts parts on checksum-block boundaries). An answer
   * shorter than the parts (the object ends early) is consumed and resolves
   * `{ complete: false }` with no part handed over: the caller reads those
   * parts another way. `into`, when given, names where part i lands (exactly
   * `lengths[i]` bytes of the caller's memory, handed to `onPart` as it is);
   * `alloc` supplies the rest.
   */
  async readRun(
    ref: BulkRef,
    offset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer, stamps?: BlockStamps) => void,
    alloc: (bytes: number) => Buffer = Buffer.allocUnsafe,
    into?: (index: number) => Buffer | undefined,
  ): Promise<RunResult> {
    let delivered = 0;
    const counted = (index: number, data: Buffer, stamps?: BlockStamps): void => {
      delivered = index + 1;
      onPart(index, data, stamps);
    };
    const place = (index: number, length: number): Buffer => {
      const out = into?.(index) ?? alloc(length);
      if (out.length !== length)
        throw new Error(`bulk: part ${index} lands in ${out.length} bytes, not ${length}`);
      return out;
    };
    try {
      return await this.readRunOnce(ref, offset, lengths, counted, place, this.waiveOssCheck);
    } catch (err) {
      this.recheckOrThrow(err);
      // The parts handed over passed; the rest is asked for again with the OSS's check.
      const skipped = lengths.slice(0, delivered).reduce((sum, n) => sum + n, 0);
      const first = delivered;
      return this.readRunOnce(
        ref,
        offset + skipped,
        lengths.slice(first),
        (index, data, stamps) => onPart(first + index, data, stamps),
        (index, length) => place(first + index, length),
        false,
      );
    }
  }

  private async readRunOnce(
    ref: BulkRef,
    offset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer, stamps?: BlockStamps) => void,
    place: (index: number, length: number) => Buffer,
    readerVerifies: boolean,
  ): Promise<RunResult> {
    const total = lengths.reduce((sum, n) => sum + n, 0);
    // Segments may join checksum blocks up to a size that puts a segment
    // boundary at every part's start: the common divisor of all parts but the last.
    const leading = lengths.slice(0, -1);
    const segmentBytes = leading.length === 0 ? total : leading.reduce(gcd);
    const ticket = await this.ticketOf(ref.objectId, 'read');
    return this.withConnection(ref.ostId, async (conn): Promise<Answer<RunResult>> => {
      const asked = await this.askRead(conn, ticket, ref, offset, total, segmentBytes, readerVerifies);
      if (!asked.ok) return asked;
      const { bodyBytes, stamps } = asked.value;
      const directBefore = conn.reader.directBytes;
      try {
        if (bodyBytes < total) {
          // Keep the connection in step, then let the caller sort it out part by part.
          if (
            bodyBytes > 0 &&
            !(await this.receive(conn, ref, offset, Buffer.allocUnsafe(bodyBytes), readerVerifies))
          )
            return this.errorAfterAbort(conn);
          return { ok: true, value: { complete: false, bodyBytes } };
        }
        let at = offset;
        for (const [index, length] of lengths.entries()) {
          const out = place(index, length);
          if (!(await this.receive(conn, ref, at, out, readerVerifies))) return this.errorAfterAbort(conn);
          onPart(index, out, stamps && partStamps(stamps, offset, at, length, this.blockBytes));
          at += length;
        }
        return { ok: true, value: { complete: true } };
      } finally {
        this.directReadBytes += conn.reader.directBytes - directBefore;
      }
    });
  }

  /**
   * Receives segments filling `out` exactly, each verified; false when the
   * OSS aborted the body. `unchecked`: the OSS did not check whole blocks, so
   * a failure may lie on its disk as well as on the wire (read recheck).
   */
  private receive(
    conn: Connection,
    ref: BulkRef,
    offset: number,
    out: Buffer,
    unchecked: boolean,
  ): Promise<boolean> {
    return conn.reader.readSegments(out, (start, segmentLength, crc) => {
      this.segmentsRead++;
      if (crc32c(out.subarray(start, start + segmentLength)) !== crc) {
        throw new StripeError(
          'OBJ_CHECKSUM',
          unchecked
            ? `bulk read of ${ref.objectId}: data failed its checksum (not checked by the OSS)`
            : `bulk read of ${ref.objectId}: data failed its checksum in transit`,
          {
            detectedBy: 'client',
            uncheckedByOss: unchecked,
            objectOffset: offset + start,
          },
        );
      }
    });
  }

  /** Reads a response header: the OSS's answer, or its coded refusal. */
  private async readHeader(conn: Connection): Promise<Answer<ReturnType<typeof decodeResponseHeader>>> {
    const header = decodeResponseHeader(await conn.reader.readExact(RESPONSE_FIXED_BYTES));
    if (header.ok) return { ok: true, value: header };
    return { ok: false, error: decodeErrorBody(await conn.reader.readExact(header.bodyBytes)) };
  }

  /** The error response that follows a body the OSS aborted (anything else breaks the protocol). */
  private async errorAfterAbort(conn: Connection): Promise<Answer<never>> {
    const header = await this.readHeader(conn);
    if (header.ok)
      throw new StripeError('REQ_INTERNAL', `bulk: ${this.address} aborted a body without an error`);
    return header;
  }

  /**
   * Fails every request to OST `ostId` in flight now with OST_DOWN,
   * closing its connection: the cluster map says the OST is down, so its answer may never
   * come and waiting out the request timeout would stall the reader. Returns how many failed.
   */
  abortOst(ostId: number, why: string): number {
    return this.inFlight.abortOst(ostId, ` at ${this.address}`, why);
  }

  /** Runs `work` on a connection of its own; a value or a coded refusal keeps the connection, anything thrown closes it. */
  private async withConnection<T>(ostId: number, work: (conn: Connection) => Promise<Answer<T>>): Promise<T> {
    if (this.closed) throw new StripeError('REQ_UNAVAILABLE', 'bulk client closed');
    await this.slots.acquire();
    let conn: Connection | undefined;
    let timer: NodeJS.Timeout | undefined;
    let unregister = (): void => undefined;
    try {
      conn = this.idle.pop() ?? (await this.open());
      const active = conn;
      const cut = new Promise<never>((_, reject) => {
        const end = (err: StripeError): void => {
          active.socket.destroy();
          reject(err);
        };
        timer = setTimeout(
          () =>
            end(
              new StripeError(
                'REQ_TIMEOUT',
                `bulk request to ${this.address} took over ${this.timeoutMs} ms`,
              ),
            ),
          this.timeoutMs,
        );
        unregister = this.inFlight.add(ostId, end);
      });
      const answer = await Promise.race([work(active), cut]);
      conn = undefined; // handed back below, whatever the answer
      if (!this.closed && active.reader.idle) this.idle.push(active);
      else active.socket.destroy();
      if (!answer.ok) throw answer.error;
      return answer.value;
    } catch (err) {
      conn?.socket.destroy();
      throw err;
    } finally {
      clearTimeout(timer);
      unregister();
      this.slots.release();
    }
  }

  private open(): Promise<Connection> {
    this.connectionsOpened++;
    return new Promise((resolve, reject) => {
      const { socket, reader, ready } = this.connectSocket();
      const onError = (err: Error): void => {
        reject(
          isCertificateError(err)
            ? new StripeError(
                'TLS_UNTRUSTED',
                `bulk connect to ${this.address}: ${err.message}: tls.ca must be the CA that signed the cluster's certificate`,
              )
            : new StripeError('REQ_UNAVAILABLE', `bulk connect to ${this.address}: ${err.message}`),
        );
      };
      socket.once('error', onError);
      socket.once(ready, () => {
        socket.off('error', onError);
        socket.on('error', () => {
          // surfaced through the reader as REQ_UNAVAILABLE
        });
        if (this.hello) socket.write(this.hello);
        resolve({ socket, reader });
      });
    });
  }

  /**
   * A socket to the OSS and its reader: a body's segments land where they belong
   * (SocketReader.nextBuffer), other bytes in one reused buffer per connection (no allocation
   * per read), copied on from there. With TLS (common/tls.ts) the same: tls.connect's `onread`
   * decrypts each record straight into that buffer.
   */
  private connectSocket(): { socket: Socket; reader: SocketReader; ready: 'connect' | 'secureConnect' } {
    let reader: SocketReader | undefined;
    const spare = Buffer.allocUnsafe(BULK_SOCKET_READ_BYTES);
    const onread = {
      buffer: () => reader?.nextBuffer(spare) ?? spare,
      callback: (bytes: number, buf: Uint8Array): boolean => {
        return (reader as SocketReader).push(Buffer.from(buf.buffer, buf.byteOffset, bytes), true);
      },
    };
    const tls = bulkClientTls(this.tls);
    // tls.connect takes `onread` (Node's documentation), which @types/node does not declare.
    const tlsOptions: ConnectionOptions & { onread: typeof onread } = {
      host: this.host,
      port: this.port,
      onread,
      ...tls,
    };
    const socket = tls
      ? tlsConnect(tlsOptions).setNoDelay(true)
      : connect({ host: this.host, port: this.port, noDelay: true, onread });
    reader = new SocketReader(socket, BULK_READ_HIGH_WATER_BYTES, { external: true });
    return { socket, reader, ready: tls ? 'secureConnect' : 'connect' };
  }

  close(): void {
    this.closed = true;
    for (const conn of this.idle.splice(0)) conn.socket.destroy();
  }
}
