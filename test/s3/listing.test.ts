// Listing order: random directory trees listed page by page through the
// gateway's walk must give exactly what S3's definition gives over the sorted
// list of all keys (prefix, delimiter, start-after, max-keys, continuation).
// The tree is in memory behind the same listPage/stat calls the MDS answers
// (names in UTF-8 byte order, exclusive cursors, pages); the MDS itself is
// exercised by the gateway tests in s3.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Stat } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { seedFromEnv } from '../../common/random.js';
import { compareKeys } from '../../s3/keys.js';
import { list } from '../../s3/listing/list.js';
import { type After, isAfter, nameBefore, resumeCursor } from '../../s3/listing/order.js';

const SEED = seedFromEnv();
console.log(`s3 listing seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

type Tree = Map<string, Tree | null>; // null: a file

function statOf(isDirectory: boolean): Stat {
  return {
    inode: 1,
    type: isDirectory ? 'directory' : 'file',
    size: 0,
    mtimeMs: 0,
    ctimeMs: 0,
    mode: 0,
    nlink: 1,
    layout: undefined,
    isFile: () => !isDirectory,
    isDirectory: () => isDirectory,
  } as Stat;
}

function lister(root: Tree, pageLimit: number) {
  const find = (path: string): Tree | null | undefined => {
    let node: Tree | null | undefined = root;
    // The bucket '/b' is the tree's root.
    for (const name of path
      .split('/')
      .filter((n) => n !== '')
      .slice(1))
      node = node ? node.get(name) : undefined;
    return node;
  };
  const notFound = () => new StripeError('NS_NOT_FOUND', 'not found');
  return {
    calls: 0,
    async listPage(path: string, options: { after?: string; limit?: number } = {}) {
      this.calls++;
      const dir = find(path);
      if (!dir) throw notFound();
      const names = [...dir.keys()]
        .sort(compareKeys)
        .filter((n) => !options.after || compareKeys(n, options.after) > 0);
      const limit = Math.min(options.limit ?? pageLimit, pageLimit);
      const page = names.slice(0, limit);
      const entries = page.map((name) => ({ name, stat: statOf(dir.get(name) !== null) }));
      return { entries, next: names.length > limit ? page[page.length - 1] : undefined };
    },
    async stat(path: string) {
      const node = find(path);
      if (node === undefined) throw notFound();
      return statOf(node !== null);
    },
  };
}

/** Every key of a tree: files, and empty directories as `dir/`. */
function allKeys(tree: Tree, prefix = ''): string[] {
  const keys: string[] = [];
  for (const [name, child] of tree) {
    if (child === null) keys.push(prefix + name);
    else if (child.size === 0) keys.push(`${prefix + name}/`);
    else keys.push(...allKeys(child, `${prefix + name}/`));
  }
  return keys;
}

/** S3's definition over the sorted keys: the keys after the resume point, each itself or its common prefix once. */
function reference(keys: string[], prefix: string, delimiter: string, after: After | undefined): string[] {
  const out: string[] = [];
  for (const key of [...keys].sort(compareKeys)) {
    if (!key.startsWith(prefix) || !isAfter(key, after)) continue;
    const at = delimiter === '' ? -1 : key.indexOf(delimiter, prefix.length);
    const item = at < 0 ? key : `CP:${key.slice(0, at + delimiter.length)}`;
    if (out[out.length - 1] !== item) out.push(item);
  }
  return out;
}

async function listAll(
  tree: Tree,
  prefix: string,
  delimiter: string,
  after: After | undefined,
  maxKeys: number,
  pageLimit: number,
) {
  const client = lister(tree, pageLimit);
  const out: string[] = [];
  let resume = after;
  for (let pages = 0; pages < 10_000; pages++) {
    const result = await list(client as never, { bucket: 'b', prefix, delimiter, after: resume, maxKeys });
    const page = [
      ...result.objects.map((o) => ({ key: o.key, text: o.key })),
      ...result.prefixes.map((p) => ({ key: p, text: `CP:${p}` })),
    ].sort((a, b) => compareKeys(a.key, b.key));
    out.push(...page.map((p) => p.text));
    if (!result.truncated) return out;
    expect(page.length).toBe(maxKeys);
    resume = result.last;
  }
  throw new Error('listing did not end');
}

const NAME_CHARS = ['a', 'b', '-', '.', '0', 'é', '😀', '~'];
const nameArb = fc
  .array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 3 })
  .map((c) => c.join(''))
  .filter((n) => n !== '.' && n !== '..');
const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc
    .array(fc.tuple(nameArb, fc.oneof({ depthSize: 'small' }, fc.constant(null), tie('tree'))), {
      maxLength: 6,
    })
    .map((entries) => new Map(entries)),
})).tree;

describe('S3 listings over a directory tree', () => {
  it('pages through any tree like the sorted list of keys (random trees, prefixes, delimiters, resume points)', async () => {
    await fc.assert(
      fc.asyncProperty(
        treeArb,
        fc.constantFrom('', 'a', 'a-', 'b/', 'a/b', 'é'),
        fc.constantFrom('', '/', '-', 'a'),
        fc.option(fc.constantFrom('a', 'a-', 'a/', 'a/-', 'a/b', 'b/a', 'b/0', 'a.b', '😀')),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        async (tree, prefix, delimiter, startAfter, maxKeys, pageLimit) => {
          const after = startAfter === null ? undefined : { key: startAfter, isPrefix: false };
          const got = await listAll(tree, prefix, delimiter, after, maxKeys, pageLimit);
          expect(got).toEqual(reference(allKeys(tree), prefix, delimiter, after));
        },
      ),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('keys that sort between a directory and its contents ("d-1" < "d/" < "d0") come in byte order', async () => {
    const tree: Tree = new Map([
      ['d', new Map([['x', null]])],
      ['d-1', null],
      ['d.txt', null],
      ['d0', null],
      ['c', null],
    ]);
    expect(await listAll(tree, '', '', undefined, 2, 1)).toEqual(['c', 'd-1', 'd.txt', 'd/x', 'd0']);
    expect(await listAll(tree, '', '/', undefined, 1, 2)).toEqual(['c', 'd-1', 'd.txt', 'CP:d/', 'd0']);
    // start-after inside a directory: its prefix shows only while keys after that point remain in it.
    expect(await listAll(tree, '', '/', { key: 'd/w', isPrefix: false }, 5, 5)).toEqual(['CP:d/', 'd0']);
    expect(await listAll(tree, '', '/', { key: 'd/y', isPrefix: false }, 5, 5)).toEqual(['d0']);
  });

  it('a resume cursor starts early enough and a name cursor sits just below its name', () => {
    expect(resumeCursor('d-1')).toBe(nameBefore('d'));
    expect(resumeCursor('abc')).toBe(nameBefore('abc'));
    for (const name of ['b', 'ba', 'é', '😀x', 'a\u0001', 'd0']) {
      expect(nameBefore(name)).not.toContain('/');
      const before = nameBefore(name);
      expect(compareKeys(before, name)).toBeLessThan(0);
      expect(Buffer.byteLength(before)).toBeLessThanOrEqual(255);
    }
    expect(compareKeys(nameBefore('b'), 'a~~~~')).toBeGreaterThan(0);
  });
});
