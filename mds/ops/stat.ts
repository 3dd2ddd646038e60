// stat and StatMany (statahead, and the client's coalesced stats):
// read-only, outside the mutex, from the database alone so they see only
// acknowledged state. A StatMany item fails with the error Stat would raise.
import { LIMITS, StripeError } from '../../common/index.js';
import type {
  ItemError,
  StatManyRequest__Output,
  StatManyResponse,
  StatManyResult,
  StatRequest__Output,
  StatResponse,
} from '../../proto/index.js';
import { KEYS } from '../keys.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';
import { type NodeRecord, toAttr } from '../records.js';
import { itemError } from './item-error.js';

export async function stat(ns: Namespace, request: StatRequest__Output): Promise<StatResponse> {
  const found = await ns.resolve(ns.reader, parsePath(request.path));
  return { attr: toAttr(found.node, ns.rootDefault) };
}

/** Each path's node, or the error Stat of it would raise (parsePath normalises nothing away). */
export type NodeOrError = { node: NodeRecord; error: null } | { node: null; error: ItemError };

/**
 * Resolves each distinct parent directory once, then fetches every entry in one getMany. `allow`
 * refuses a path by throwing (the caller's caps), as a failed item.
 */
export async function nodesOf(
  ns: Namespace,
  paths: readonly string[],
  allow?: (path: string) => void,
): Promise<NodeOrError[]> {
  const results: NodeOrError[] = new Array(paths.length);
  const parents = new Map<string, Promise<number>>();
  const keys: string[] = [];
  const slots: number[] = [];
  await Promise.all(
    paths.map(async (path, i) => {
      try {
        allow?.(path);
        const names = parsePath(path);
        if (names.length === 0) {
          results[i] = { node: await ns.root(ns.reader), error: null };
          return;
        }
        const name = names.pop() as string;
        const parentKey = names.join('/');
        let parent = parents.get(parentKey);
        if (!parent) {
          parent = ns.resolveDir(ns.reader, names).then((r) => r.node.ino);
          parents.set(parentKey, parent);
        }
        keys.push(KEYS.dentry(await parent, name));
        slots.push(i);
      } catch (err) {
        results[i] = { node: null, error: itemError(err) };
      }
    }),
  );
  const values = (await ns.db.getMany(keys)) as (NodeRecord | undefined)[];
  values.forEach((node, j) => {
    const i = slots[j] as number;
    const path = paths[i] as string;
    results[i] = node
      ? { node, error: null }
      : { node: null, error: itemError(new StripeError('NS_NOT_FOUND', `${path} does not exist`, { path })) };
  });
  return results;
}

export async function statMany(
  ns: Namespace,
  request: StatManyRequest__Output,
  allow?: (path: string) => void,
): Promise<StatManyResponse> {
  if (request.paths.length > LIMITS.statManyPathsMax) {
    throw new StripeError('REQ_INVALID', `StatMany takes at most ${LIMITS.statManyPathsMax} paths`, {
      count: request.paths.length,
    });
  }
  const found = await nodesOf(ns, request.paths, allow);
  const results: StatManyResult[] = found.map((f, i) => {
    const path = request.paths[i] as string;
    return f.node
      ? { path, found: true, attr: toAttr(f.node, ns.rootDefault), errorCode: '', error: null }
      : { path, found: false, attr: null, errorCode: f.error.code, error: f.error };
  });
  return { results };
}
