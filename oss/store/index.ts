// Public face of the OST store: the ObjectStore API and the real backend's
// opener. Nothing outside oss/store/ imports anything else of it
// (test/oss/store-closed.test.ts): its files, index database and key layout
// stay its own.

import type { ObjectStore } from './object-store.js';
import { Ost, type OstOptions } from './ost.js';

export type * from './object-store.js';
export type { OstOptions } from './ost.js';

/** Opens (or creates) the OST in `opts.dir`: object files plus a classic-level index. */
export function openOst(opts: OstOptions): Promise<ObjectStore> {
  return Ost.open(opts);
}
