// Every identity may read and write one folder of its own, as if its caps
// said `rw /.stripefs-s3/id/NAME`: the S3 gateway acts as the identity that
// signed a request, and stages that identity's uploads there (a PUT streams
// into a staging file, then one rename publishes it, so the identity must be
// able to write both ends). The folder is hidden from listings of other
// identities as any path outside their caps is.

import type { Cap } from './caps.js';
import { allowListOf } from './cidr.js';

/** Where the identities' own folders live (made by the S3 gateway at start). */
export const SCRATCH_ROOT = '/.stripefs-s3/id';

export function scratchPathOf(name: string): string {
  return `${SCRATCH_ROOT}/${name}`;
}

/** The cap every identity holds on its own folder. */
export function scratchCapOf(name: string): Cap {
  return { read: true, write: true, path: scratchPathOf(name), allow: allowListOf([]) };
}
