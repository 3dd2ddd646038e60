// Walks a bucket's directory tree in S3 key order, a readdir page at a time,
// holding one page per directory level: files as objects, directories as
// common prefixes (a '/' delimiter) or walked into, and an empty directory
// as its folder marker object (`dir/`, size 0).
import type { Stat, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { compareKeys } from '../keys.js';
import { S3_LIMITS } from '../limits.js';
import { type After, isAfter, laterCursor, nameBefore, resumeCursor, sortKeyOf } from './order.js';

export type WalkItem = { kind: 'object'; key: string; stat: Stat } | { kind: 'prefix'; key: string };

export interface WalkOptions {
  /** Walk into directories (no '/' delimiter) or give each as a common prefix. */
  descend: boolean;
  after: After | undefined;
}

type Lister = Pick<StripeClient, 'listPage' | 'stat'>;

/** Whether the subtree of directory key `dirKey` can hold keys after the resume point. */
function subtreeAfter(
  dirKey: string,
  after: After | undefined,
): { visit: boolean; inner: After | undefined } {
  if (!after) return { visit: true, inner: undefined };
  if (after.isPrefix && dirKey.startsWith(after.key)) return { visit: false, inner: undefined };
  if (after.key.startsWith(dirKey)) return { visit: true, inner: after };
  return compareKeys(dirKey, after.key) > 0
    ? { visit: true, inner: undefined }
    : { visit: false, inner: undefined };
}

async function* pages(
  client: Lister,
  path: string,
  cursor: string,
): AsyncGenerator<{ name: string; stat: Stat }[]> {
  let after: string | undefined = cursor;
  do {
    const page = await client.listPage(path, { after, limit: S3_LIMITS.listKeysMax });
    yield page.entries;
    after = page.next;
  } while (after !== undefined);
}

/**
 * Items under directory `path`, whose keys start with `keyPrefix` (the directory's own key, '' for
 * the bucket) followed by a name starting with `namePrefix`, in key order, after `options.after`.
 * A directory that does not exist (or is a file) holds nothing.
 */
export async function* walk(
  client: Lister,
  path: string,
  keyPrefix: string,
  namePrefix: string,
  options: WalkOptions,
  selfStat?: Stat,
): AsyncGenerator<WalkItem> {
  const { after } = options;
  let cursor = nameBefore(namePrefix);
  if (after?.key.startsWith(keyPrefix))
    cursor = laterCursor(cursor, resumeCursor(after.key.slice(keyPrefix.length)));
  const pendingDirs: { sortKey: string; name: string; stat: Stat }[] = [];
  let sawEntry = false;
  try {
    pageLoop: for await (const entries of pages(client, path, cursor)) {
      for (const entry of entries) {
        if (!entry.name.startsWith(namePrefix)) {
          if (compareKeys(entry.name, namePrefix) > 0) break pageLoop;
          continue;
        }
        sawEntry = true;
        const isDirectory = entry.stat.isDirectory();
        if (!isDirectory && !entry.stat.isFile()) continue; // neither an object nor a prefix (a symlink)
        const sortKey = sortKeyOf(entry.name, isDirectory);
        while (
          pendingDirs.length > 0 &&
          compareKeys((pendingDirs[0] as { sortKey: string }).sortKey, sortKey) < 0
        )
          yield* visitDir(client, path, keyPrefix, pendingDirs.shift()!, options);
        if (isDirectory) insertSorted(pendingDirs, { sortKey, name: entry.name, stat: entry.stat });
        else if (isAfter(keyPrefix + entry.name, after))
          yield { kind: 'object', key: keyPrefix + entry.name, stat: entry.stat };
      }
    }
  } catch (err) {
    if (err instanceof StripeError && (err.code === 'NS_NOT_FOUND' || err.code === 'NS_NOT_DIR')) return;
    throw err;
  }
  for (const dir of pendingDirs) yield* visitDir(client, path, keyPrefix, dir, options);
  // An empty directory is its folder marker (only when the walk started from its first name).
  if (!sawEntry && namePrefix === '' && cursor === '' && keyPrefix !== '' && isAfter(keyPrefix, after)) {
    // Gone since it was listed empty: then it is no marker either.
    const stat = selfStat ?? (await client.stat(path).catch(() => undefined));
    if (stat?.isDirectory()) yield { kind: 'object', key: keyPrefix, stat };
  }
}

function insertSorted<T extends { sortKey: string }>(list: T[], item: T): void {
  let i = list.length;
  while (i > 0 && compareKeys((list[i - 1] as T).sortKey, item.sortKey) > 0) i--;
  list.splice(i, 0, item);
}

async function* visitDir(
  client: Lister,
  parentPath: string,
  keyPrefix: string,
  dir: { sortKey: string; name: string; stat: Stat },
  options: WalkOptions,
): AsyncGenerator<WalkItem> {
  const dirKey = keyPrefix + dir.sortKey;
  const { visit, inner } = subtreeAfter(dirKey, options.after);
  if (!visit) return;
  const path = parentPath === '/' ? `/${dir.name}` : `${parentPath}/${dir.name}`;
  if (!options.descend) {
    // The prefix stands for its keys after the resume point: when that point lies inside the
    // directory, one such key must exist.
    let some = inner === undefined;
    if (!some) {
      const keys = walk(client, path, dirKey, '', { descend: true, after: inner }, dir.stat);
      some = !(await keys.next()).done;
      await keys.return(undefined);
    }
    if (some) yield { kind: 'prefix', key: dirKey };
    return;
  }
  yield* walk(client, path, dirKey, '', { descend: true, after: inner }, dir.stat);
}
