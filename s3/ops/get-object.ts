// GetObject and HeadObject. A GET opens the file once and streams from that
// handle (the client library's readahead follows the sequential reads), so
// the headers and the bytes describe the same file even if the key is
// replaced meanwhile. Range gives 206; conditional headers 304 or 412.
import { Readable, type Writable } from 'node:stream';
import type { Stat, StripeFileHandle } from '../../client/index.js';
import { BufferPool } from '../../common/bulk/buffer-pool.js';
import { StripeError } from '../../common/errors.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { keyPath } from '../keys.js';
import { S3_LIMITS } from '../limits.js';
import { type BodyPump, emptyReply, type S3Reply } from '../reply.js';
import type { S3Request } from '../request.js';
import { evaluate, parseRange } from '../store/conditions.js';
import { etagOf, META_XATTR, type ObjectMeta, objectHeaders, parseMeta } from '../store/meta.js';
import { requireBucket } from './buckets.js';

const RESPONSE_OVERRIDES: Record<string, string> = {
  'response-content-type': 'content-type',
  'response-content-language': 'content-language',
  'response-expires': 'expires',
  'response-cache-control': 'cache-control',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
};

/** Reads [start, end] of an open file in chunks as the consumer pulls, closing the handle at the end. */
export function rangeStream(handle: StripeFileHandle, start: number, endInclusive: number): Readable {
  let position = start;
  const stream = new Readable({
    highWaterMark: S3_LIMITS.getChunkBytes,
    read() {
      const length = Math.min(S3_LIMITS.getChunkBytes, endInclusive + 1 - position);
      if (length <= 0) {
        this.push(null);
        return;
      }
      const buffer = Buffer.allocUnsafe(length);
      handle.read(buffer, 0, length, position).then(
        ({ bytesRead }) => {
          if (bytesRead === 0) {
            this.destroy(s3Error('InternalError', `the object ended at ${position} bytes, before its size`));
            return;
          }
          position += bytesRead;
          this.push(bytesRead === length ? buffer : buffer.subarray(0, bytesRead));
        },
        (err: unknown) => this.destroy(err as Error),
      );
    },
  });
  // A read handle has nothing to flush: closing it cannot lose data, and the answer is sent already.
  stream.once('close', () => void handle.close().catch(() => undefined));
  return stream;
}

/** The gateway's GET buffers, reused across requests (fresh memory is slow to touch). */
const pumpBuffers = new BufferPool(S3_LIMITS.getPumpChunkBytes, S3_LIMITS.getPumpIdleBuffersMax);

/**
 * [start, end] of an open file written to the response from getPumpDepth reused buffers: each is
 * read into, written, and read into again once the socket has taken it (its write callback), so
 * the next reads overlap the sending and no chunk is new memory. Closes the handle at the end.
 */
export function rangePump(handle: StripeFileHandle, start: number, endInclusive: number): BodyPump {
  return {
    async pump(out: Writable): Promise<void> {
      const free: Buffer[] = [];
      let taken = 0;
      let wake: (() => void) | undefined;
      let failed: Error | undefined;
      const giveBack = (buffer: Buffer, err?: Error | null): void => {
        if (err) failed ??= err;
        free.push(buffer);
        wake?.();
      };
      // A response closed early may never call back for what it held: stop waiting for it.
      const closed = (): void => {
        failed ??= new Error('the response was closed before its end');
        wake?.();
      };
      out.once('close', closed);
      try {
        for (let position = start; position <= endInclusive; ) {
          while (free.length === 0 && taken >= S3_LIMITS.getPumpDepth && !failed)
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          if (failed || out.destroyed) throw failed ?? new Error('the response was closed');
          let buffer = free.pop();
          if (!buffer) {
            buffer = pumpBuffers.take();
            taken++;
          }
          const length = Math.min(buffer.length, endInclusive + 1 - position);
          const { bytesRead } = await handle.read(buffer, 0, length, position);
          if (bytesRead === 0)
            throw s3Error('InternalError', `the object ended at ${position} bytes, before its size`);
          position += bytesRead;
          const chunk = buffer;
          out.write(buffer.subarray(0, bytesRead), (err) => giveBack(chunk, err));
        }
        // Every buffer back: the socket has taken the last bytes.
        while (free.length < taken && !failed)
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        if (failed) throw failed;
        // Only now, every write called back: a buffer of a failed response is left to the collector.
        for (const buffer of free) pumpBuffers.give(buffer);
      } finally {
        out.off('close', closed);
        // A read handle has nothing to flush: closing it cannot lose data.
        await handle.close().catch(() => undefined);
      }
    },
  };
}

export async function notFound(gateway: Gateway, request: S3Request, err: unknown): Promise<never> {
  await requireBucket(gateway, request.bucket as string);
  if (
    err instanceof StripeError &&
    (err.code === 'NS_NOT_FOUND' ||
      err.code === 'NS_NOT_DIR' ||
      err.code === 'NS_IS_DIR' ||
      err.code === 'NS_IS_SYMLINK')
  )
    throw s3Error('NoSuchKey', 'The specified key does not exist.', { key: request.key });
  throw err;
}

function conditionsOf(request: S3Request) {
  const h = request.headers;
  const one = (name: string) => (h[name] === undefined ? undefined : String(h[name]));
  return {
    ifMatch: one('if-match'),
    ifNoneMatch: one('if-none-match'),
    ifModifiedSince: one('if-modified-since'),
    ifUnmodifiedSince: one('if-unmodified-since'),
  };
}

/** A folder marker (`dir/`): the directory itself, an empty object. */
async function getMarker(gateway: Gateway, request: S3Request, path: string): Promise<S3Reply> {
  const stat = await gateway.client.stat(path).catch((err: unknown) => notFound(gateway, request, err));
  if (!stat.isDirectory()) return notFound(gateway, request, new StripeError('NS_NOT_FOUND', path));
  const headers = objectHeaders(stat, undefined);
  headers.etag = '"d41d8cd98f00b204e9800998ecf8427e"';
  return emptyReply(200, { ...headers, 'content-length': 0 });
}

export async function getObject(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const key = request.key as string;
  const { path, isDirectory } = keyPath(request.bucket as string, key);
  if (isDirectory) return getMarker(gateway, request, path);
  // One MDS call: the open reads the record with the file's attributes, so both are the opened
  // file's (a HEAD too: a read handle costs nothing to close).
  const handle = await gateway.client
    .open(path, 'r', { xattr: META_XATTR })
    .catch((err: unknown) => notFound(gateway, request, err));
  try {
    const stat = handle.opened ?? (await gateway.client.stat(path));
    const record = handle.openedXattr;
    const meta = record ? parseMeta({ value: record, inode: handle.inode }) : undefined;
    if (request.method === 'HEAD') {
      await handle.close();
      if (!stat.isFile()) return notFound(gateway, request, new StripeError('NS_IS_DIR', path));
      return await answer(request, undefined, stat, meta);
    }
    return await answer(request, handle, stat, meta);
  } catch (err) {
    // The error being answered is the one that matters; a read handle holds nothing to lose.
    await handle.close().catch(() => undefined);
    throw err;
  }
}

async function answer(
  request: S3Request,
  handle: StripeFileHandle | undefined,
  stat: Stat,
  meta: ObjectMeta | undefined,
): Promise<S3Reply> {
  const sizeBytes = handle?.size ?? stat.size;
  const headers: Record<string, string | number> = { ...objectHeaders(stat, meta), 'accept-ranges': 'bytes' };
  if (
    evaluate(conditionsOf(request), { etag: etagOf(stat, meta), mtimeMs: stat.mtimeMs }) === 'not-modified'
  ) {
    await handle?.close();
    return emptyReply(304, {
      etag: headers.etag as string,
      'last-modified': headers['last-modified'] as string,
    });
  }
  const partNumber = request.query.get('partNumber');
  if (partNumber !== undefined && partNumber !== '1')
    throw s3Error('NotImplemented', 'GET of a part other than 1 is not offered; use a Range');
  for (const [param, header] of Object.entries(RESPONSE_OVERRIDES)) {
    const value = request.query.get(param);
    if (value !== undefined) headers[header] = value;
  }
  const range = sizeBytes === 0 ? undefined : parseRange(request.headers.range, sizeBytes);
  const start = range?.start ?? 0;
  const end = range?.end ?? sizeBytes - 1;
  headers['content-length'] = end - start + 1;
  if (range) headers['content-range'] = `bytes ${start}-${end}/${sizeBytes}`;
  const status = range ? 206 : 200;
  if (!handle) return emptyReply(status, headers);
  if (sizeBytes === 0) {
    await handle.close();
    return { status, headers, body: '' };
  }
  const body =
    end + 1 - start > S3_LIMITS.getPumpBytesMin
      ? rangePump(handle, start, end)
      : rangeStream(handle, start, end);
  return { status, headers, body };
}
