// The OST store is closed: production code outside oss/store/ reaches it only
// through oss/store/index.ts (the ObjectStore API), only the store's index
// module opens a classic-level database on the OSS side, and only it reads
// the index's key layout. The MDS's keys are built in mds/keys.ts alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import { expect, it } from 'vitest';

/** Every top-level folder of source but the tests, the generated code and the build. */
const PRODUCTION = readdirSync('.', { withFileTypes: true })
  .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
  .map((e) => e.name)
  .filter((name) => !['node_modules', 'dist', 'test', 'proto', 'data'].includes(name));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

const files = PRODUCTION.flatMap(sourceFiles).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => {
    const target = m[1] as string;
    return target.startsWith('.') ? relative('.', normalize(join(file, '..', target))) : target;
  });
}

it('reaches the OST store only through its public face', () => {
  const violations = files.flatMap(({ file, text }) =>
    file.startsWith('oss/store/')
      ? []
      : importsOf(file, text)
          .filter((t) => t.startsWith('oss/store/') && t !== 'oss/store/index.js')
          .map((t) => `${file} imports ${t}`),
  );
  expect(violations).toEqual([]);
});

it('opens classic-level databases in the two database modules only', () => {
  const openers = files
    .filter(({ file, text }) => importsOf(file, text).includes('classic-level'))
    .map((f) => f.file);
  expect(openers.sort()).toEqual(['mds/db.ts', 'oss/store/ost-index.ts']);
});

it('reads the OST index layout in its index module only', () => {
  const readers = files
    .filter(({ file, text }) => importsOf(file, text).includes('oss/store/index-layout.js'))
    .map((f) => f.file);
  expect(readers).toEqual(['oss/store/ost-index.ts']);
});

it('builds MDS keys in mds/keys.ts only', () => {
  // A key is a one-letter prefix and a slash ('D/...', `R/s/...`): no other MDS file spells one.
  const spelled = files
    .filter(({ file }) => file.startsWith('mds/') && file !== 'mds/keys.ts')
    .flatMap(({ file, text }) => [...text.matchAll(/['`][A-Z]\/[^'`]*['`]/g)].map((m) => `${file}: ${m[0]}`));
  expect(spelled).toEqual([]);
});
