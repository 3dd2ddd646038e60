// Chunk checksums: crc32c (Castagnoli), from @node-rs/crc32's native binding.
// The binding ships prebuilt for linux-x64; nativeChecksumLoaded() lets the
// servers refuse to start on a pure-JS fallback that would be ~10x slower.
import { createRequire } from 'node:module';

type Crc32cFn = (input: Uint8Array, initialState?: number) => number;

const require = createRequire(import.meta.url);
const binding = require('@node-rs/crc32') as { crc32c: Crc32cFn };

/** crc32c of `data`, optionally continuing from a previous value (streaming). */
export function crc32c(data: Uint8Array, previous = 0): number {
  return binding.crc32c(data, previous) >>> 0;
}

/**
 * True when the native binding for this platform is installed. The package
 * can also fall back to a WASI build, which is several times slower; the
 * servers log a warning when that happens.
 */
export function nativeChecksumLoaded(): boolean {
  for (const libc of ['gnu', 'musl']) {
    try {
      require.resolve(`@node-rs/crc32-${process.platform}-${process.arch}-${libc}`);
      return true;
    } catch {
      // try the next libc flavour
    }
  }
  return false;
}

/** crc32c of each `blockBytes` block of `data` (the last block may be short). */
export function blockChecksums(data: Uint8Array, blockBytes: number): number[] {
  if (!Number.isInteger(blockBytes) || blockBytes <= 0) throw new Error(`bad block size ${blockBytes}`);
  const sums: number[] = [];
  for (let offset = 0; offset < data.length; offset += blockBytes) {
    sums.push(crc32c(data.subarray(offset, Math.min(offset + blockBytes, data.length))));
  }
  return sums;
}
