// A request body as the gateway stores it: decoded (aws-chunked), counted,
// and checked against everything the request claims about it (the signed
// SHA-256, chunk and trailer signatures, Content-MD5, an x-amz-checksum-*
// header or trailer, the declared length). Checks that need the whole body
// run when it ends, before the iteration finishes: a caller that publishes
// only after the loop never publishes a body that failed one.
import { createHash, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { crc32c } from '../common/checksum.js';
import { ThreadDigest } from './digest-thread.js';
import { s3Error } from './errors.js';
import type { SharedBuffers } from './gather.js';
import { type ChunkedResult, decodeAwsChunked } from './sigv4/chunked.js';
import type { PayloadCheck } from './sigv4/verify.js';

type ChecksumAlgorithm = 'crc32' | 'crc32c' | 'sha1' | 'sha256';
const ALGORITHMS: readonly ChecksumAlgorithm[] = ['crc32', 'crc32c', 'sha1', 'sha256'];

class Checksum {
  private crc = 0;
  private readonly hash: Hash | undefined;

  constructor(readonly algorithm: ChecksumAlgorithm) {
    if (algorithm === 'sha1' || algorithm === 'sha256') this.hash = createHash(algorithm);
  }

  update(data: Buffer): void {
    if (this.hash) this.hash.update(data);
    else this.crc = this.algorithm === 'crc32' ? crc32(data, this.crc) : crc32c(data, this.crc);
  }

  base64(): string {
    if (this.hash) return this.hash.digest('base64');
    const out = Buffer.alloc(4);
    out.writeUInt32BE(this.crc >>> 0);
    return out.toString('base64');
  }
}

export interface BodyClaims {
  payload: PayloadCheck;
  headers: Record<string, string | string[] | undefined>;
}

function header(headers: BodyClaims['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** The checksum a request declares, in a header or as a trailer to come. */
function declaredChecksum(
  headers: BodyClaims['headers'],
): { algorithm: ChecksumAlgorithm; value?: string } | undefined {
  for (const algorithm of ALGORITHMS) {
    const value = header(headers, `x-amz-checksum-${algorithm}`);
    if (value !== undefined) return { algorithm, value };
  }
  const trailer = header(headers, 'x-amz-trailer')?.trim().toLowerCase();
  if (trailer) {
    const algorithm = trailer.replace(/^x-amz-checksum-/, '') as ChecksumAlgorithm;
    if (!trailer.startsWith('x-amz-checksum-') || !ALGORITHMS.includes(algorithm))
      throw s3Error(
        'InvalidRequest',
        `the trailer ${trailer} is not supported: use a CRC32, CRC32C, SHA1 or SHA256 checksum`,
      );
    return { algorithm };
  }
  const sdk = header(headers, 'x-amz-sdk-checksum-algorithm')?.toLowerCase();
  if (sdk && !ALGORITHMS.includes(sdk as ChecksumAlgorithm))
    throw s3Error(
      'InvalidRequest',
      `the checksum algorithm ${sdk} is not supported: use CRC32, CRC32C, SHA1 or SHA256`,
    );
  return undefined;
}

/** The declared size of the stored bytes: x-amz-decoded-content-length for aws-chunked, else Content-Length. */
export function declaredLength(claims: BodyClaims): number | undefined {
  const text =
    claims.payload.kind === 'chunked'
      ? header(claims.headers, 'x-amz-decoded-content-length')
      : header(claims.headers, 'content-length');
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n))
    throw s3Error('InvalidArgument', `bad length ${JSON.stringify(text)}`);
  return n;
}

/** What the checks at a body's end need from its decoding. */
interface BodyEnds {
  chunked?: ChunkedResult;
  checksum?: Checksum;
}

/** A gathered piece of a body (RequestBody.gathered). */
export interface GatheredBuffer {
  data: Buffer;
  /** No byte of the body follows this buffer's. */
  last: boolean;
  /** The caller is done lending `data` once `released` settles. */
  done(released: Promise<void>): void;
}

/** Gathered buffers the digest thread may be behind by (each waits for it before it is reused). */
const GATHER_HASH_LAG = 2;

export class RequestBody implements AsyncIterable<Buffer> {
  /** Bytes of payload seen so far. */
  bytes = 0;
  private md5Digest: Buffer | undefined;
  private readonly expectedLength: number | undefined;
  private readonly checksum: { algorithm: ChecksumAlgorithm; value?: string } | undefined;

  constructor(
    private readonly source: AsyncIterable<Buffer>,
    private readonly claims: BodyClaims,
  ) {
    this.expectedLength = declaredLength(claims);
    this.checksum = declaredChecksum(claims.headers);
    const md5 = header(claims.headers, 'content-md5');
    if (md5 !== undefined && !/^[A-Za-z0-9+/]{22}==$/.test(md5))
      throw s3Error('InvalidDigest', 'Content-MD5 is not the base64 of 16 bytes');
  }

  get declaredBytes(): number | undefined {
    return this.expectedLength;
  }

  /** The MD5 of the whole body (the ETag of a single-part object); only once it has been read. */
  md5Hex(): string {
    if (!this.md5Digest) throw new Error('the body has not been read to its end');
    return this.md5Digest.toString('hex');
  }

  md5Binary(): Buffer {
    this.md5Hex();
    return this.md5Digest as Buffer;
  }

  /** The body's pieces, hashed here as they pass (small bodies; the XML of a request). */
  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    const md5 = createHash('md5');
    const sha256 = this.claims.payload.kind === 'sha256' ? createHash('sha256') : undefined;
    const ends: BodyEnds = {};
    for await (const piece of this.checkedPieces(ends)) {
      md5.update(piece);
      sha256?.update(piece);
      yield piece;
    }
    this.finish(md5.digest(), sha256?.digest('hex'), ends);
  }

  /**
   * The body gathered into buffers of `gatherBytes` from `buffers` (the last may be shorter), each
   * hashed on the digest thread while the caller writes it. The caller lends each buffer's `data`
   * and calls `done` with the promise that settles once nothing reads it any more (the library's
   * `released`); the buffer returns to the pool once that and its hashing are done. `last` is set
   * on the final buffer (no byte follows it). As with the iterator, every check runs before the
   * iteration finishes.
   */
  async *gathered(buffers: SharedBuffers, gatherBytes: number): AsyncGenerator<GatheredBuffer> {
    const digest = new ThreadDigest(this.claims.payload.kind === 'sha256' ? ['md5', 'sha256'] : ['md5']);
    const hashing: Promise<unknown>[] = [];
    const lend = (data: Buffer, root: Buffer, last: boolean): GatheredBuffer => {
      const hashed = digest.update(data);
      // Only paces the gathering; a failed hashing fails the body at its digest.
      hashing.push(hashed.catch(() => undefined));
      return {
        data,
        last,
        done: (released) => {
          // A buffer whose hashing failed is left to the collector (the body fails at its digest).
          void Promise.all([released, hashed]).then(
            () => buffers.give(root),
            () => undefined,
          );
        },
      };
    };
    let current: Buffer | undefined;
    let fill = 0;
    /** A full buffer, lent once it is known whether bytes follow it. */
    let full: Buffer | undefined;
    const ends: BodyEnds = {};
    try {
      for await (const piece of this.checkedPieces(ends)) {
        for (let at = 0; at < piece.length; ) {
          if (full) {
            const next = full;
            full = undefined;
            yield lend(next, next, false);
          }
          if (!current) {
            // The digest thread is at most GATHER_HASH_LAG buffers behind: memory stays bounded.
            while (hashing.length >= GATHER_HASH_LAG) await hashing.shift();
            current = buffers.take(gatherBytes);
            fill = 0;
          }
          const n = piece.copy(current, fill, at);
          fill += n;
          at += n;
          if (fill === current.length) {
            full = current;
            current = undefined;
          }
        }
      }
      const root = full ?? current;
      const tail = full ?? current?.subarray(0, fill);
      full = undefined;
      current = undefined;
      if (root && tail) yield lend(tail, root, true);
      const [md5, sha256] = await digest.digests();
      this.finish(md5 as Buffer, sha256?.toString('hex'), ends);
    } finally {
      // Not lent: nothing else reads them.
      if (full) buffers.give(full);
      if (current) buffers.give(current);
      digest.discard();
    }
  }

  /** The decoded payload, counted against its declared length; `ends` gets what the checks at the end need. */
  private async *checkedPieces(ends: BodyEnds): AsyncGenerator<Buffer> {
    const { payload } = this.claims;
    const chunked: ChunkedResult = { trailers: new Map() };
    ends.chunked = chunked;
    const stream =
      payload.kind === 'chunked'
        ? decodeAwsChunked(this.source, { signing: payload.signing, trailer: payload.trailer }, chunked)
        : this.source;
    const checksum = this.checksum ? new Checksum(this.checksum.algorithm) : undefined;
    ends.checksum = checksum;
    for await (const piece of stream) {
      this.bytes += piece.length;
      if (this.expectedLength !== undefined && this.bytes > this.expectedLength)
        throw s3Error('IncompleteBody', `the body is longer than its declared ${this.expectedLength} bytes`);
      checksum?.update(piece);
      yield piece;
    }
    if (this.expectedLength !== undefined && this.bytes !== this.expectedLength)
      throw s3Error(
        'IncompleteBody',
        `the body has ${this.bytes} of its declared ${this.expectedLength} bytes`,
      );
  }

  /** The checks of the whole body: the signed SHA-256, Content-MD5, the x-amz-checksum header or trailer. */
  private finish(md5: Buffer, sha256Hex: string | undefined, ends: BodyEnds): void {
    const { payload } = this.claims;
    this.md5Digest = md5;
    if (payload.kind === 'sha256' && sha256Hex !== payload.hex)
      throw s3Error('XAmzContentSHA256Mismatch', 'the body does not match its x-amz-content-sha256');
    const contentMd5 = header(this.claims.headers, 'content-md5');
    if (contentMd5 !== undefined && contentMd5 !== md5.toString('base64'))
      throw s3Error('BadDigest', 'the body does not match its Content-MD5');
    const { checksum, chunked } = ends;
    if (checksum && this.checksum) {
      const expected = this.checksum.value ?? chunked?.trailers.get(`x-amz-checksum-${checksum.algorithm}`);
      if (expected === undefined)
        throw s3Error('IncompleteBody', `the x-amz-checksum-${checksum.algorithm} trailer is missing`);
      if (expected !== checksum.base64())
        throw s3Error('BadDigest', `the body does not match its x-amz-checksum-${checksum.algorithm}`);
    }
  }
}
