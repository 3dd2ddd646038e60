// Rebuilds fuse-native's addon (the FUSE binding of `stripefs mount`, see
// mount/fuse-binding.ts) from its C source with two fixes, with the system C
// compiler against Node's headers and Debian's libfuse2: what `npm rebuild
// fuse-native` would build, without node-gyp or a download. node-gyp-build
// loads build/Release before the package's prebuild.
//   1. utimens passed the access time twice (the modification time was lost);
//   2. UTIME_NOW and UTIME_OMIT reached JavaScript as garbage times; they now
//      arrive as the current time and as UTIME_OMIT_MS (2^53 - 1) respectively;
//   3. flag_utime_omit_ok: without it libfuse 2 drops a call that sets only one
//      of the two times (touch -m, tar x, which leaves the access time alone).
// Where it cannot build (no fuse-native, libfuse2, compiler or headers) it
// says so and exits 0: the mount then runs on the prebuild and warns that
// times it sets are wrong. `--require` makes a failure fatal.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeHeaders } from './node-headers.mjs';

const PACKAGE = 'node_modules/fuse-native';
const SOURCE = join(PACKAGE, 'fuse-native.c');
const TARGET = join(PACKAGE, 'build/Release/fuse.node');
const PATCHED = 'native/build/fuse-native-patched.c';
const LIBFUSE = [
  '/usr/lib/x86_64-linux-gnu/libfuse.so.2',
  '/lib/x86_64-linux-gnu/libfuse.so.2',
  '/usr/lib/libfuse.so.2',
];
const required = process.argv.includes('--require');
const self = fileURLToPath(import.meta.url);

function skip(reason) {
  const message = `build-fuse: ${TARGET} not built: ${reason}; stripefs mount would use fuse-native's prebuild (times it sets are wrong)`;
  if (required) {
    console.error(message);
    process.exit(1);
  }
  console.warn(message);
  process.exit(0);
}

const PATCHES = [
  {
    what: 'utimens sends the modification time as its second time',
    from: '  FUSE_UINT64_TO_INTS_ARGV(l->atime, 3)\n  FUSE_UINT64_TO_INTS_ARGV(l->atime, 5)',
    to: '  FUSE_UINT64_TO_INTS_ARGV(l->atime, 3)\n  FUSE_UINT64_TO_INTS_ARGV(l->mtime, 5)',
  },
  {
    what: 'UTIME_NOW is the current time, UTIME_OMIT a sentinel',
    from: 'static uint64_t timespec_to_uint64 (const struct timespec* ts) {\n',
    to:
      'static uint64_t timespec_to_uint64 (const struct timespec* ts) {\n' +
      '  if (ts->tv_nsec == UTIME_OMIT) return 9007199254740991ULL;\n' +
      '  if (ts->tv_nsec == UTIME_NOW) {\n' +
      '    struct timespec now;\n' +
      '    clock_gettime(CLOCK_REALTIME, &now);\n' +
      '    return (uint64_t) now.tv_sec * 1000 + now.tv_nsec / 1000000;\n' +
      '  }\n',
  },
  {
    what: 'libfuse passes calls that set one time only (flag_utime_omit_ok)',
    from: '  if (implemented[op_utimens]) ops.utimens = fuse_native_utimens;\n',
    to:
      '  if (implemented[op_utimens]) ops.utimens = fuse_native_utimens;\n' +
      '  ops.flag_utime_omit_ok = 1;\n',
  },
];

if (process.platform !== 'linux' || process.arch !== 'x64')
  skip(`${process.platform}-${process.arch} is not linux-x64`);
if (!existsSync(SOURCE)) skip(`${SOURCE} is missing (npm ci installs fuse-native)`);
const libfuse = LIBFUSE.find((path) => existsSync(path));
if (!libfuse) skip('libfuse.so.2 is missing (apt-get install libfuse2)');
const newest = Math.max(statSync(SOURCE).mtimeMs, statSync(self).mtimeMs);
if (existsSync(TARGET) && statSync(TARGET).mtimeMs >= newest) process.exit(0);

const headers = nodeHeaders(['node_api.h', 'uv.h']);
if (!headers) skip("Node's headers (node_api.h, uv.h) were not found");
const fuseHeaders = 'node_modules/fuse-shared-library-linux/libfuse/include';
if (!existsSync(join(fuseHeaders, 'fuse.h'))) skip(`${fuseHeaders}/fuse.h is missing`);
const macros = 'node_modules/napi-macros';
if (!existsSync(join(macros, 'napi-macros.h'))) skip(`${macros}/napi-macros.h is missing`);

let source = readFileSync(SOURCE, 'utf8');
for (const patch of PATCHES) {
  if (!source.includes(patch.from)) skip(`the source changed: cannot apply "${patch.what}"`);
  source = source.replace(patch.from, patch.to);
}
mkdirSync(dirname(PATCHED), { recursive: true });
writeFileSync(PATCHED, source);
mkdirSync(dirname(TARGET), { recursive: true });
const compiler = process.env.CC ?? 'cc';
try {
  execFileSync(
    compiler,
    [
      '-O2',
      '-shared',
      '-fPIC',
      '-D_FILE_OFFSET_BITS=64',
      `-I${headers}`,
      `-I${fuseHeaders}`,
      `-I${macros}`,
      '-o',
      TARGET,
      PATCHED,
      libfuse,
      '-lpthread',
    ],
    { stdio: 'inherit' },
  );
} catch (err) {
  skip(`${compiler} failed (${err instanceof Error ? err.message : String(err)})`);
}
console.log(`build-fuse: built ${TARGET} against ${libfuse}`);
