// Builds native/crc32c.c into native/build/crc32c.node (stripefs's SSE4.2
// crc32c, common/checksum.ts) with the system C compiler against Node's own
// headers: no node-gyp and no download. Part of `npm run build`. Where it
// cannot build (no compiler or headers, not x86-64) it says so and exits 0:
// the checksum falls back to @node-rs/crc32, which the OSS logs at start.
// `--require` makes a failure fatal instead.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { nodeHeaders } from './node-headers.mjs';

const SOURCE = 'native/crc32c.c';
const TARGET = 'native/build/crc32c.node';
const required = process.argv.includes('--require');

function skip(reason) {
  const message = `build-native: ${TARGET} not built: ${reason}; crc32c falls back to @node-rs/crc32`;
  if (required) {
    console.error(message);
    process.exit(1);
  }
  console.warn(message);
  process.exit(0);
}

if (process.arch !== 'x64') skip(`${process.arch} has no SSE4.2`);
if (existsSync(TARGET) && statSync(TARGET).mtimeMs >= statSync(SOURCE).mtimeMs) process.exit(0);
const headers = nodeHeaders();
if (!headers) skip("Node's headers (node_api.h) were not found");
const compiler = process.env.CC ?? 'cc';
mkdirSync(dirname(TARGET), { recursive: true });
try {
  execFileSync(
    compiler,
    ['-O2', '-shared', '-fPIC', '-Wall', '-Wextra', '-Werror', `-I${headers}`, '-o', TARGET, SOURCE],
    { stdio: 'inherit' },
  );
} catch (err) {
  skip(`${compiler} failed (${err instanceof Error ? err.message : String(err)})`);
}
console.log(`build-native: built ${TARGET}`);
