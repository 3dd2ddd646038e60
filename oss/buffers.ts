// The OSS's shared pools of buffers for the data path: 1 MiB ones for write
// staging (oss/file-writer.ts, oss/bulk-server.ts) and 2 MiB ones for read
// spans (oss/ost-read.ts).
import { BufferPool } from '../common/bulk/buffer-pool.js';

export const DATA_BUFFER_BYTES = 1024 * 1024;
/**
 * Page-aligned (so staged writes can go to disk with O_DIRECT, see
 * file-writer.ts); every buffer made is kept for reuse, so the pool's size is
 * the data path's peak concurrency.
 */
export const dataBuffers = new BufferPool(DATA_BUFFER_BYTES, 64, { aligned: true });

/**
 * A read steps through an object this many bytes at a time (one `read` into
 * the thread pool, one `writev`, one drain wait each). With 1 MiB spans the
 * six OSSs of an ec:4+2 read made about 3,600 context switches per GB; with
 * 2 MiB ones their CPU per GB fell by a fifth or more (docs/ARCHITECTURE.md).
 */
export const READ_SPAN_BYTES = 2 * 1024 * 1024;
/** Read spans, page-aligned for O_DIRECT reads; sized by the reads in flight, like dataBuffers. */
export const readSpanBuffers = new BufferPool(READ_SPAN_BYTES, 32, { aligned: true });
