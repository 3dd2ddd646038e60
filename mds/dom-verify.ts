// The verify pass over data on the MDS (`GET /api/dom/verify`, served with the scrub routes, run by
// `stripefs scrub`): every B/ record is read and checked as a reader would
// check it (its crc32c, its length against the file's record), and a record
// no live file owns is named. Nothing can be repaired: the MDS database is the
// one copy (rewriting the file replaces its record).
import { decodeDom } from './dom.js';
import { inodeOfDestroyKey, KEYS } from './keys.js';
import type { Namespace } from './namespace.js';
import type { BackPointer, NodeRecord } from './records.js';

/** Problems a report lists at most (the counts are always whole). */
export const DOM_VERIFY_LISTED_MAX = 1_000;

export interface DomVerifyReport {
  files: number;
  bytes: number;
  corruptCount: number;
  orphanCount: number;
  corrupt: { inode: number; detail: string }[];
  orphans: number[];
}

/** The node of a live file with this inode, from acknowledged state. */
async function ownerOf(ns: Namespace, ino: number): Promise<NodeRecord | undefined> {
  const where = await ns.reader.get<BackPointer>(KEYS.backPointer(ino));
  const node = where && (await ns.reader.get<NodeRecord>(KEYS.dentry(where.parent, where.name)));
  return node?.ino === ino ? node : undefined;
}

export async function verifyDom(ns: Namespace): Promise<DomVerifyReport> {
  const report: DomVerifyReport = {
    files: 0,
    bytes: 0,
    corruptCount: 0,
    orphanCount: 0,
    corrupt: [],
    orphans: [],
  };
  for await (const [key, value] of ns.db.iterator<string, Buffer>({
    ...KEYS.domRange,
    valueEncoding: 'buffer',
  })) {
    const ino = inodeOfDestroyKey(key);
    const node = await ownerOf(ns, ino);
    if (!node) {
      report.orphanCount++;
      if (report.orphans.length < DOM_VERIFY_LISTED_MAX) report.orphans.push(ino);
      continue;
    }
    try {
      const data = decodeDom(ino, value, node.domStored ?? 0);
      report.files++;
      report.bytes += data.length;
    } catch (err) {
      report.corruptCount++;
      if (report.corrupt.length < DOM_VERIFY_LISTED_MAX)
        report.corrupt.push({ inode: ino, detail: (err as Error).message });
    }
  }
  return report;
}
