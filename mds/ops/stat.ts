// stat and StatMany (statahead, and the client's coalesced stats):
// read-only, outside the mutex, from the database alone so they see only
// acknowledged state. A StatMany item fails with the error Stat would raise.
import { LIMITS, StripeError } from '../../common/index.js';
import type {
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

/** Resolves each distinct parent directory once, then fetches every entry in one getMany. */
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
  const results: StatManyResult[] = request.paths.map((path) => ({
    path,
    found: false,
    attr: null,
    errorCode: '',
    error: null,
  }));
  const parents = new Map<string, Promise<number>>();
  const keys: string[] = [];
  const slots: number[] = [];
  await Promise.all(
    request.paths.map(async (path, i) => {
      try {
        allow?.(path);
        const names = parsePath(path);
        if (names.length === 0) {
          results[i] = {
            path,
            found: true,
            attr: toAttr(await ns.root(ns.reader), ns.rootDefault),
            errorCode: '',
            error: null,
          };
          return;
        }
        const name = names.pop()!;
        const parentKey = names.join('/');
        let parent = parents.get(parentKey);
        if (!parent) {
          parent = ns.resolveDir(ns.reader, names).then((r) => r.node.ino);
          parents.set(parentKey, parent);
        }
        keys.push(KEYS.dentry(await parent, name));
        slots.push(i);
      } catch (err) {
        const error = itemError(err);
        Object.assign(results[i]!, { errorCode: error.code, error });
      }
    }),
  );
  const values = (await ns.db.getMany(keys)) as (NodeRecord | undefined)[];
  values.forEach((node, j) => {
    const result = results[slots[j]!]!;
    if (node) Object.assign(result, { found: true, attr: toAttr(node, ns.rootDefault) });
    else {
      // What Stat of the same path raises (parsePath has normalised nothing away).
      const error = itemError(
        new StripeError('NS_NOT_FOUND', `${result.path} does not exist`, { path: result.path }),
      );
      Object.assign(result, { errorCode: error.code, error });
    }
  });
  return { results };
}
