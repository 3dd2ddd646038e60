// A seeded local tree for the mount tests: nested folders, files of sizes
// around the stripe boundaries (empty, one byte, a page, a unit and a bit,
// several MiB), a symlink and an empty folder; and its fingerprint (every
// path with type, mode, size, mtime in whole seconds, symlink target and
// sha256), which copies through the mount must keep.
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { type Random, seededRandom } from '../../common/random.js';

const SIZES = [0, 1, 4095, 4096, 65_537, 1_048_576 + 3, 2 * 1_048_576 + 12_345];

function bytes(random: Random, size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) out[i] = random.int(256);
  return out;
}

/** Writes the tree under `root` (which must not exist); returns the file count. */
export function makeTree(root: string, seed: number, filesPerDir = 6): number {
  const random = seededRandom(seed);
  let count = 0;
  const dirs = ['', 'a', 'a/b', 'a/b/c', 'd', 'd/e'];
  for (const dir of dirs) {
    mkdirSync(join(root, dir), { recursive: true });
    for (let i = 0; i < filesPerDir; i++) {
      const size = SIZES[(i + dir.length) % SIZES.length] as number;
      const path = join(root, dir, `f${i}.bin`);
      writeFileSync(path, bytes(random, size), { mode: i % 2 === 0 ? 0o644 : 0o600 });
      // A fixed past time: copies that keep times show it, copies that do not show now.
      utimesSync(path, 1_600_000_000 + i, 1_500_000_000 + count);
      count++;
    }
  }
  mkdirSync(join(root, 'empty'));
  symlinkSync('a/b/f1.bin', join(root, 'link'));
  return count;
}

/** One line per entry, sorted: type, mode, size (files), mtime (files, whole seconds), target, sha256. */
export function fingerprint(root: string): string[] {
  const lines: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const st = lstatSync(path);
      const rel = relative(root, path);
      if (st.isSymbolicLink()) lines.push(`l ${rel} -> ${readlinkSync(path)}`);
      else if (st.isDirectory()) {
        lines.push(`d ${rel} ${(st.mode & 0o7777).toString(8)}`);
        walk(path);
      } else {
        const sha = createHash('sha256').update(readFileSync(path)).digest('hex');
        lines.push(
          `f ${rel} ${(st.mode & 0o7777).toString(8)} ${st.size} ${Math.floor(st.mtimeMs / 1000)} ${sha}`,
        );
      }
    }
  };
  walk(root);
  return lines;
}
