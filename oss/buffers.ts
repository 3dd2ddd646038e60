// The OSS's shared pool of 1 MiB buffers for the data path: write staging
// (oss/file-writer.ts, oss/bulk-server.ts) and read spans (oss/ost-read.ts).
import { BufferPool } from '../common/bulk/buffer-pool.js';

export const DATA_BUFFER_BYTES = 1024 * 1024;
/** Idle buffers kept for reuse (64 MiB at most). */
export const dataBuffers = new BufferPool(DATA_BUFFER_BYTES, 64);
