// ListObjects over the walk: prefixes and delimiters as S3 defines them.
// With the '/' delimiter directories are common prefixes and are not walked
// into; any other delimiter walks the tree and groups keys by prefix.
import type { Stat, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { bucketPath, compareKeys, keyPath } from '../keys.js';
import type { After } from './order.js';
import { walk } from './walk.js';

export interface ListRequest {
  bucket: string;
  prefix: string;
  delimiter: string;
  after: After | undefined;
  maxKeys: number;
}

export interface ListResult {
  objects: { key: string; stat: Stat }[];
  prefixes: string[];
  truncated: boolean;
  /** The last key or prefix returned (where the next page resumes). */
  last: After | undefined;
}

/** The directory a prefix starts in, and the start of names in it; undefined when no key can have the prefix. */
function startOf(
  bucket: string,
  prefix: string,
): { path: string; dirKey: string; namePrefix: string } | undefined {
  const dirKey = prefix.slice(0, prefix.lastIndexOf('/') + 1);
  if (dirKey === '') return { path: bucketPath(bucket), dirKey, namePrefix: prefix };
  try {
    return { path: keyPath(bucket, dirKey).path, dirKey, namePrefix: prefix.slice(dirKey.length) };
  } catch (err) {
    if (err instanceof StripeError) return undefined; // no path holds such keys ('a//', '../')
    throw err;
  }
}

/** Whether keys under `dirKey` can come after the resume point at all. */
function reachable(dirKey: string, after: After | undefined): boolean {
  if (!after || after.key.startsWith(dirKey)) return !(after?.isPrefix && dirKey.startsWith(after.key));
  return compareKeys(dirKey, after.key) > 0 && !(after.isPrefix && dirKey.startsWith(after.key));
}

export async function list(
  client: Pick<StripeClient, 'listPage' | 'stat'>,
  request: ListRequest,
): Promise<ListResult> {
  const result: ListResult = { objects: [], prefixes: [], truncated: false, last: undefined };
  const start = startOf(request.bucket, request.prefix);
  if (!start || request.maxKeys <= 0 || !reachable(start.dirKey, request.after)) return result;
  const { delimiter, prefix } = request;
  const items = walk(client, start.path, start.dirKey, start.namePrefix, {
    descend: delimiter !== '/',
    after: request.after,
  });
  let count = 0;
  for await (const item of items) {
    let entry: { key: string; isPrefix: boolean; stat?: Stat };
    if (item.kind === 'prefix') entry = { key: item.key, isPrefix: true };
    else {
      const at = delimiter === '' || delimiter === '/' ? -1 : item.key.indexOf(delimiter, prefix.length);
      entry =
        at < 0
          ? { key: item.key, isPrefix: false, stat: item.stat }
          : { key: item.key.slice(0, at + delimiter.length), isPrefix: true };
    }
    if (entry.isPrefix && result.last?.isPrefix && result.last.key === entry.key) continue; // grouped
    if (count === request.maxKeys) {
      result.truncated = true;
      break;
    }
    count++;
    if (entry.isPrefix) result.prefixes.push(entry.key);
    else result.objects.push({ key: entry.key, stat: entry.stat as Stat });
    result.last = { key: entry.key, isPrefix: entry.isPrefix };
  }
  return result;
}
