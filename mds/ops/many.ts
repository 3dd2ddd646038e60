// CreateMany, UnlinkMany and CommitMany: the calls a client coalesces from
// concurrent callers. Each item is its own operation (its own transaction and atomic
// batch; the group commit merges their writes) and fails alone with the
// error the single call would raise. All items start at once: each reaches
// the namespace mutex before its first await, so they are applied in item
// order, and the reply waits until every item's write is on disk.
import { LIMITS, StripeError } from '../../common/index.js';
import type {
  CommitManyRequest__Output,
  CommitManyResponse,
  CommitRequest__Output,
  CreateManyRequest__Output,
  CreateManyResponse,
  ItemError,
  UnlinkManyRequest__Output,
  UnlinkManyResponse,
} from '../../proto/index.js';
import type { Namespace } from '../namespace.js';
import { commit } from './commit.js';
import { create } from './create.js';
import { itemError } from './item-error.js';
import { unlink } from './remove.js';

type Outcome<T> = { value: T; error: null } | { value: null; error: ItemError };

/** Called once per failed item (metrics). */
export type OnItemError = (error: ItemError) => void;
/** Throws for an item the caller may not touch (its caps): the item fails alone. */
export type ItemCheck = (path: string) => void;

async function eachItem<Req, Res>(
  items: readonly Req[],
  what: string,
  run: (item: Req) => Promise<Res>,
  onError: OnItemError,
  pathOf: (item: Req) => string,
  allow?: ItemCheck,
): Promise<Outcome<Res>[]> {
  if (items.length > LIMITS.namespaceBatchItemsMax) {
    throw new StripeError('REQ_INVALID', `${what} takes at most ${LIMITS.namespaceBatchItemsMax} items`, {
      count: items.length,
    });
  }
  return Promise.all(
    items.map((item) =>
      (async () => {
        allow?.(pathOf(item));
        return run(item);
      })().then(
        (value): Outcome<Res> => ({ value, error: null }),
        (err: unknown): Outcome<Res> => {
          const error = itemError(err);
          onError(error);
          return { value: null, error };
        },
      ),
    ),
  );
}

export async function createMany(
  ns: Namespace,
  request: CreateManyRequest__Output,
  onError: OnItemError = () => {},
  allow?: ItemCheck,
): Promise<CreateManyResponse> {
  const outcomes = await eachItem(
    request.items,
    'CreateMany',
    (item) => create(ns, item),
    onError,
    (item) => item.path,
    allow,
  );
  return {
    results: outcomes.map((o) =>
      o.error
        ? { attr: null, error: o.error, dataStored: false }
        : { attr: o.value.attr, error: null, dataStored: o.value.dataStored ?? false },
    ),
    mapEpoch: ns.cluster.epoch(),
  };
}

export async function unlinkMany(
  ns: Namespace,
  request: UnlinkManyRequest__Output,
  onError: OnItemError = () => {},
  allow?: ItemCheck,
): Promise<UnlinkManyResponse> {
  const outcomes = await eachItem(
    request.items,
    'UnlinkMany',
    (item) => unlink(ns, item),
    onError,
    (item) => item.path,
    allow,
  );
  return { results: outcomes.map((o) => ({ error: o.error })) };
}

/**
 * Commits of size and mtime (and dom bytes) by inode, as Commit each. The caller's check (its caps on
 * each inode's current path) runs for every item first; then the commits start at once, in item order.
 */
export async function commitMany(
  ns: Namespace,
  request: CommitManyRequest__Output,
  onError: OnItemError = () => {},
  allow?: (item: CommitRequest__Output) => Promise<void>,
): Promise<CommitManyResponse> {
  if (request.items.length > LIMITS.namespaceBatchItemsMax) {
    throw new StripeError('REQ_INVALID', `CommitMany takes at most ${LIMITS.namespaceBatchItemsMax} items`, {
      count: request.items.length,
    });
  }
  // The checks await: the items' mutations begin after them, in the call's scope still.
  const scope = ns.currentScope;
  const refused = await Promise.all(
    request.items.map((item) =>
      allow
        ? allow(item).then(
            () => undefined,
            (err: unknown) => err,
          )
        : undefined,
    ),
  );
  const outcomes = await ns.inScope(scope, () =>
    eachItem(
      request.items.map((item, i) => ({ item, refused: refused[i] })),
      'CommitMany',
      async ({ item, refused: why }) => {
        if (why !== undefined) throw why;
        return commit(ns, item);
      },
      onError,
      ({ item }) => `inode:${item.inode}`,
    ),
  );
  return {
    results: outcomes.map((o) =>
      o.error ? { attr: null, error: o.error } : { attr: o.value.attr, error: null },
    ),
  };
}
