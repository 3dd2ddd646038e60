// The npm registry reachable from our machines carries only the linux-glibc
// builds of @biomejs/biome's platform packages, so `npm install` writes a
// package-lock.json without the other platforms and `npm ci` then rejects it
// ("Missing: @biomejs/cli-darwin-x64@ from lock file"). This adds the missing
// optional entries with their os/cpu/libc, which npm ci skips on this
// platform. Run it after any `npm install` that rewrites the lock.
import { readFileSync, writeFileSync } from 'node:fs';

const PLATFORMS = {
  'cli-android-arm64': { os: ['android'], cpu: ['arm64'] },
  'cli-android-x64': { os: ['android'], cpu: ['x64'] },
  'cli-darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'cli-darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'cli-linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'] },
  'cli-linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'] },
  'cli-win32-arm64': { os: ['win32'], cpu: ['arm64'] },
  'cli-win32-x64': { os: ['win32'], cpu: ['x64'] },
};

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const biome = lock.packages['node_modules/@biomejs/biome'];
let added = 0;
for (const [name, spec] of Object.entries(PLATFORMS)) {
  const key = `node_modules/@biomejs/${name}`;
  if (!biome?.optionalDependencies?.[`@biomejs/${name}`] || lock.packages[key]) continue;
  lock.packages[key] = {
    version: biome.version,
    ...spec,
    dev: true,
    license: 'MIT OR Apache-2.0',
    optional: true,
  };
  added++;
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
lock.packages = sorted;
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lock: added ${added} platform entries`);
