// statfs: raw capacity of the OSTs that are in (as `df` on Lustre adds its
// OSTs up, before replication or parity), and the MDS's count of entries.
// The MDS has no fixed inode table: filesFree is a fixed, large figure.
import type { StatfsResponse } from '../../proto/index.js';
import type { OstUsage } from '../cluster/wire.js';
import type { Namespace } from '../namespace.js';

/** Free entries reported: the database grows as needed, so any large figure is honest. */
export const STATFS_FILES_FREE = 2 ** 32;

export function statfs(ns: Namespace, usage: ReadonlyMap<number, OstUsage>): StatfsResponse {
  let totalBytes = 0;
  let usedBytes = 0;
  let ostsIn = 0;
  let ostsUp = 0;
  for (const ost of ns.cluster.map().osts) {
    if (ost.state.up) ostsUp++;
    if (!ost.state.in) continue;
    ostsIn++;
    const used = usage.get(ost.id);
    totalBytes += used?.totalBytes ?? 0;
    usedBytes += used?.usedBytes ?? 0;
  }
  const dom = ns.dom.usage;
  return {
    domFiles: dom.files,
    domBytes: dom.bytes,
    totalBytes,
    usedBytes,
    availableBytes: Math.max(0, totalBytes - usedBytes),
    files: ns.nodeCount,
    filesFree: STATFS_FILES_FREE,
    ostsIn,
    ostsUp,
  };
}
