// The OSS's shared pools of buffers for the data path: 1 MiB ones for write
// staging (oss/store/file-writer.ts, oss/bulk-server.ts) and 2 MiB ones (oss.readSpanBytes)
// for read spans (oss/store/read.ts).
import { BufferPool } from '../common/bulk/buffer-pool.js';
import { StripeError } from '../common/errors.js';

export const DATA_BUFFER_BYTES = 1024 * 1024;
/**
 * Page-aligned (so staged writes can go to disk with O_DIRECT, see
 * store/file-writer.ts); every buffer made is kept for reuse, so the pool's size is
 * the data path's peak concurrency.
 */
export const dataBuffers = new BufferPool(DATA_BUFFER_BYTES, 64, { aligned: true });

/** Spans of reads are a multiple of this (every OST block size divides it, see oss/store/ost.ts). */
const READ_SPAN_UNIT_BYTES = 1024 * 1024;
/**
 * A read steps through an object this many bytes at a time (one `read` into
 * the thread pool, one `writev`, one drain wait each): `oss.readSpanBytes`,
 * 2 MiB by default. With 1 MiB spans the six OSSs of an ec:4+2 read made
 * about 3,600 context switches per GB; 2 MiB ones cost the OSS less CPU per
 * byte (`oss.bulk.read.cpu-2mib-spans`, docs/ARCHITECTURE.md).
 */
export const READ_SPAN_BYTES_DEFAULT = 2 * 1024 * 1024;
export let readSpanBytes = READ_SPAN_BYTES_DEFAULT;
/** Read spans, page-aligned for O_DIRECT reads; sized by the reads in flight, like dataBuffers. */
export let readSpanBuffers = new BufferPool(readSpanBytes, 32, { aligned: true });

/** Sets the span of reads (once, when the OSS starts; one OSS per process). */
export function setReadSpanBytes(bytes: number): void {
  if (!Number.isInteger(bytes) || bytes < READ_SPAN_UNIT_BYTES || bytes % READ_SPAN_UNIT_BYTES !== 0)
    throw new StripeError(
      'CONFIG_INVALID',
      `oss.readSpanBytes ${bytes}: expected a multiple of 1 MiB (1048576), such as 2097152`,
      { key: 'oss.readSpanBytes', env: 'STRIPEFS_OSS_READ_SPAN_BYTES' },
    );
  if (bytes === readSpanBytes) return;
  readSpanBytes = bytes;
  readSpanBuffers = new BufferPool(bytes, 32, { aligned: true });
}
