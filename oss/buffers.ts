// The OSS's shared pool of 1 MiB buffers for the data path: write staging
// (oss/file-writer.ts, oss/bulk-server.ts) and read spans (oss/ost-read.ts).
import { BufferPool } from '../common/bulk/buffer-pool.js';

export const DATA_BUFFER_BYTES = 1024 * 1024;
/**
 * Page-aligned (so staged writes can go to disk with O_DIRECT, see
 * file-writer.ts); every buffer made is kept for reuse, so the pool's size is
 * the data path's peak concurrency.
 */
export const dataBuffers = new BufferPool(DATA_BUFFER_BYTES, 64, { aligned: true });
