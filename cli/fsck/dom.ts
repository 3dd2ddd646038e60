// fsck of data on the MDS: every file with bytes in its dom part is opened
// (OpenMany batches, read-on-open), so the MDS checks each stored record's
// crc32c and length as it would for a reader; a record that fails, or holds
// more than the committed size, is a lost group: the MDS database is the one
// copy of those bytes, so nothing can rebuild them (rewrite the file).
import type { MdsClient } from '../../client/mds-client.js';
import { StripeError } from '../../common/errors.js';
import { Semaphore } from '../../common/semaphore.js';
import type { LostGroup } from './judge.js';
import type { FileEntry } from './scan.js';

/** Opens in flight (the client coalesces them into OpenMany calls). */
export const FSCK_DOM_OPENS_MAX = 256;

export async function checkDomParts(mds: MdsClient, files: FileEntry[]): Promise<LostGroup[]> {
  const lost: LostGroup[] = [];
  const gate = new Semaphore(FSCK_DOM_OPENS_MAX);
  const lose = (file: FileEntry, detail: string): void => {
    lost.push({ path: file.path, group: `mds:${file.inode}`, good: 0, needed: 1, detail });
  };
  await Promise.all(
    files.map((file) => {
      const expected = Math.min(file.fileSizeBytes, file.fileLayout.domBytes ?? 0);
      if (expected === 0) return undefined;
      return gate.run(async () => {
        try {
          const opened = await mds.open(file.path);
          const data = opened.domData ?? (await mds.openByInode(file.inode, file.path, expected)).domData;
          if (opened.attr.inode !== file.inode) return; // replaced since the walk
          if ((data?.length ?? 0) > expected)
            lose(file, `the MDS keeps ${data?.length} bytes of it, more than the ${expected} committed`);
        } catch (err) {
          if (err instanceof StripeError && err.code === 'NS_DOM_CORRUPT') lose(file, err.message);
          else if (!(err instanceof StripeError && err.code === 'NS_NOT_FOUND')) throw err;
        }
      });
    }),
  );
  return lost;
}
