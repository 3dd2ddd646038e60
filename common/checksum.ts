// Chunk checksums: crc32c (Castagnoli). The fast path is stripefs's own
// Node-API addon (native/crc32c.c: the SSE4.2 crc32 instruction over three
// interleaved lanes), built by `npm run build` when a C compiler and Node's
// headers are present; otherwise @node-rs/crc32's prebuilt binding, about a
// third as fast on these machines (docs/ARCHITECTURE.md). checksumBackend()
// says which one runs: the OSS logs it and exports it in /metrics, and
// test/common/checksum.test.ts insists on the addon where it can be built.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

type Crc32cFn = (input: Uint8Array, previous?: number) => number;

const require = createRequire(import.meta.url);

/** Where the addon lands, from common/ (sources under vitest) or dist/common/. */
const ADDON_PATHS = ['../native/build/crc32c.node', '../../native/build/crc32c.node'].map((p) =>
  fileURLToPath(new URL(p, import.meta.url)),
);

export type ChecksumBackend = 'stripefs-sse42' | '@node-rs/crc32' | '@node-rs/crc32-wasi';

let backend: ChecksumBackend = '@node-rs/crc32';
/** Why the addon is not used, when it is not. */
let addonProblem: string | undefined;

function load(): Crc32cFn {
  if (process.env.STRIPEFS_CRC32C !== 'node-rs') {
    const path = ADDON_PATHS.find((p) => existsSync(p));
    if (path) {
      try {
        const addon = require(path) as { crc32c: Crc32cFn };
        backend = 'stripefs-sse42';
        return addon.crc32c;
      } catch (err) {
        addonProblem = `native/build/crc32c.node did not load: ${err instanceof Error ? err.message : String(err)}`;
      }
    } else
      addonProblem = 'native/build/crc32c.node is not built (npm run build builds it when cc is present)';
  } else addonProblem = 'STRIPEFS_CRC32C=node-rs';
  const binding = require('@node-rs/crc32') as { crc32c: Crc32cFn };
  if (!prebuiltBindingInstalled()) backend = '@node-rs/crc32-wasi';
  return (data, previous = 0) => binding.crc32c(data, previous) >>> 0;
}

function prebuiltBindingInstalled(): boolean {
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

const implementation = load();

/** crc32c of `data`, optionally continuing from a previous value (streaming). */
export function crc32c(data: Uint8Array, previous = 0): number {
  return implementation(data, previous);
}

/** Which crc32c implementation runs in this process, and why not the fastest when it is not. */
export function checksumBackend(): { name: ChecksumBackend; problem?: string } {
  return addonProblem === undefined ? { name: backend } : { name: backend, problem: addonProblem };
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
