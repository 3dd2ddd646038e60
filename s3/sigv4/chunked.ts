// The aws-chunked body encoding (Content-Encoding: aws-chunked), as SDKs send
// it for streaming uploads: `SIZE_HEX[;chunk-signature=SIG]\r\nDATA\r\n`
// repeated, a zero-size chunk, then for the *-TRAILER modes trailer lines
// (`x-amz-checksum-crc32:BASE64`, and `x-amz-trailer-signature:SIG` when
// signed) and an empty line. Each chunk's signature chains from the one
// before it, starting at the request's own signature.
import { createHash } from 'node:crypto';
import { s3Error } from '../errors.js';
import { S3_LIMITS } from '../limits.js';
import { EMPTY_SHA256, signatureOf } from './canonical.js';
import type { ChunkSigning } from './verify.js';

/** Pulls bytes from a stream of buffers: whole lines, or up to n bytes at a time. */
class ByteReader {
  private pending: Buffer = Buffer.alloc(0);
  private done = false;

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async fill(): Promise<boolean> {
    if (this.done) return false;
    const next = await this.source.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.pending = this.pending.length === 0 ? next.value : Buffer.concat([this.pending, next.value]);
    return true;
  }

  /** The next line without its CRLF; IncompleteBody when the body ends first. */
  async line(): Promise<string> {
    for (;;) {
      const end = this.pending.indexOf('\r\n');
      if (end >= 0) {
        const text = this.pending.toString('latin1', 0, end);
        this.pending = this.pending.subarray(end + 2);
        return text;
      }
      if (this.pending.length > S3_LIMITS.chunkLineBytesMax)
        throw s3Error('IncompleteBody', 'an aws-chunked header line is too long');
      if (!(await this.fill())) throw s3Error('IncompleteBody', 'the aws-chunked body ended inside a header');
    }
  }

  /** Up to `n` bytes, as they arrived (no copy when they lie in one buffer). */
  async take(n: number): Promise<Buffer> {
    if (this.pending.length === 0 && !(await this.fill()))
      throw s3Error('IncompleteBody', 'the aws-chunked body ended inside a chunk');
    const piece = this.pending.subarray(0, n);
    this.pending = this.pending.subarray(piece.length);
    return piece;
  }

  async atEnd(): Promise<boolean> {
    while (this.pending.length === 0) if (!(await this.fill())) return true;
    return false;
  }
}

function chunkStringToSign(signing: ChunkSigning, previous: string, dataSha256: string): string {
  return `AWS4-HMAC-SHA256-PAYLOAD\n${signing.amzDate}\n${signing.scope}\n${previous}\n${EMPTY_SHA256}\n${dataSha256}`;
}

function parseChunkHeader(line: string, signed: boolean): { size: number; signature: string | undefined } {
  const [sizeText, ...extensions] = line.split(';');
  if (!sizeText || !/^[0-9a-fA-F]{1,16}$/.test(sizeText))
    throw s3Error('IncompleteBody', `bad aws-chunked chunk header ${JSON.stringify(line.slice(0, 80))}`);
  const size = Number.parseInt(sizeText, 16);
  if (size > S3_LIMITS.chunkBytesMax)
    throw s3Error('IncompleteBody', `an aws-chunked chunk of ${size} bytes is too large`);
  const signatureField = extensions.find((e) => e.startsWith('chunk-signature='));
  const signature = signatureField?.slice('chunk-signature='.length);
  if (signed && !signature)
    throw s3Error('SignatureDoesNotMatch', 'an aws-chunked chunk has no chunk-signature');
  return { size, signature };
}

export interface ChunkedResult {
  /** Trailer headers, lower-case name to value. */
  trailers: Map<string, string>;
}

/**
 * Decodes an aws-chunked body, verifying every chunk signature (and the trailer's) as it goes.
 * Yields the payload; the returned promise-like result is filled once the body has ended.
 */
export async function* decodeAwsChunked(
  source: AsyncIterable<Buffer>,
  options: { signing: ChunkSigning | undefined; trailer: boolean },
  result: ChunkedResult,
): AsyncGenerator<Buffer> {
  const reader = new ByteReader(source[Symbol.asyncIterator]());
  const { signing } = options;
  let previous = signing?.seedSignature ?? '';
  for (;;) {
    const { size, signature } = parseChunkHeader(await reader.line(), signing !== undefined);
    const hash = signing ? createHash('sha256') : undefined;
    for (let left = size; left > 0; ) {
      const piece = await reader.take(left);
      hash?.update(piece);
      left -= piece.length;
      yield piece;
    }
    if (signing) {
      const expected = signatureOf(signing.key, chunkStringToSign(signing, previous, hash!.digest('hex')));
      if (expected !== signature?.toLowerCase())
        throw s3Error('SignatureDoesNotMatch', 'an aws-chunked chunk signature does not match its data');
      previous = expected;
    }
    if (size === 0) break;
    if ((await reader.line()) !== '')
      throw s3Error('IncompleteBody', 'an aws-chunked chunk is longer than its size');
  }
  if (options.trailer) await readTrailer(reader, signing, previous, result);
  else if ((await reader.line().catch(() => '')) !== '') {
    throw s3Error('IncompleteBody', 'bytes follow the final aws-chunked chunk');
  }
  if (!(await reader.atEnd())) throw s3Error('IncompleteBody', 'bytes follow the aws-chunked trailer');
}

async function readTrailer(
  reader: ByteReader,
  signing: ChunkSigning | undefined,
  previous: string,
  result: ChunkedResult,
): Promise<void> {
  let canonical = '';
  let trailerSignature: string | undefined;
  for (;;) {
    const line = await reader.line();
    if (line === '') break;
    const colon = line.indexOf(':');
    if (colon <= 0)
      throw s3Error('IncompleteBody', `bad aws-chunked trailer line ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'x-amz-trailer-signature') trailerSignature = value;
    else {
      result.trailers.set(name, value);
      canonical += `${name}:${value}\n`;
    }
  }
  if (!signing) return;
  const text = `AWS4-HMAC-SHA256-TRAILER\n${signing.amzDate}\n${signing.scope}\n${previous}\n${createHash('sha256').update(canonical).digest('hex')}`;
  if (signatureOf(signing.key, text) !== trailerSignature?.toLowerCase())
    throw s3Error('SignatureDoesNotMatch', 'the aws-chunked trailer signature does not match');
}
