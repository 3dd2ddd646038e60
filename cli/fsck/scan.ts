// What fsck reads before it judges: the namespace (Readdir with attributes,
// one range scan per directory) and the objects on every OST (ListObjects per
// pool and PG). Both are plain data afterwards.
import type { FileLayout } from '../../client/layout.js';
import { requireLayoutFromWire } from '../../client/layout.js';
import type { MapView } from '../../client/map.js';
import type { MdsClient } from '../../client/mds-client.js';
import { Semaphore } from '../../common/semaphore.js';
import type { OssIo } from './oss-io.js';

/** Readdir page size and directories walked at once. */
const READDIR_PAGE_ENTRIES = 1_000;
/** ListObjects calls in flight. */
export const FSCK_LIST_CONCURRENCY = 32;

export interface FileEntry {
  path: string;
  inode: number;
  /** Bytes the objects hold: the committed size less the part on the MDS (dom). */
  size: number;
  /** The committed size. */
  fileSizeBytes: number;
  fileLayout: FileLayout;
}

/** Every file under `root`, depth first. */
export async function walkNamespace(mds: MdsClient, root = '/'): Promise<FileEntry[]> {
  const files: FileEntry[] = [];
  const dirs = [root];
  for (let dir = dirs.pop(); dir !== undefined; dir = dirs.pop()) {
    for (const entry of await mds.readdir(dir, true, READDIR_PAGE_ENTRIES)) {
      const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
      if (entry.type === 'FILE_TYPE_DIRECTORY') {
        dirs.push(path);
        continue;
      }
      const attr = entry.attr;
      if (!attr) throw new Error(`the MDS listed ${path} without its attributes`);
      const fileLayout = requireLayoutFromWire(attr.layout, `${path} as the MDS listed it`);
      const size = Math.max(0, attr.size - (fileLayout.domBytes ?? 0));
      files.push({ path, inode: attr.inode, size, fileSizeBytes: attr.size, fileLayout });
    }
  }
  return files;
}

export interface FoundObject {
  ostId: number;
  objectId: string;
  poolId: number;
  pg: number;
  size: number;
}

export interface Inventory {
  /** `${ostId}/${objectId}` -> what the OST holds. */
  objects: Map<string, FoundObject>;
  /** OSTs that are down in the map or did not answer: nothing is known of them. */
  unreachable: Map<number, string>;
}

export function copyKey(ostId: number, objectId: string): string {
  return `${ostId}/${objectId}`;
}

/** Lists every PG of every pool on every up OST. */
export async function takeInventory(view: MapView, io: OssIo): Promise<Inventory> {
  const inventory: Inventory = { objects: new Map(), unreachable: new Map() };
  const gate = new Semaphore(FSCK_LIST_CONCURRENCY);
  const work: Promise<void>[] = [];
  for (const ost of view.osts.values()) {
    if (!ost.up || !ost.grpcAddress) {
      inventory.unreachable.set(ost.id, 'down in the map');
      continue;
    }
    for (const pool of view.pools.values()) {
      for (let pg = 0; pg < pool.pgCount; pg++) {
        work.push(
          gate.run(async () => {
            if (inventory.unreachable.has(ost.id)) return;
            try {
              for (const o of await io.list(ost.grpcAddress, ost.id, pool.id, pg))
                inventory.objects.set(copyKey(ost.id, o.objectId), {
                  ostId: ost.id,
                  objectId: o.objectId,
                  poolId: pool.id,
                  pg,
                  size: o.size,
                });
            } catch (err) {
              inventory.unreachable.set(ost.id, `ListObjects failed: ${(err as Error).message}`);
            }
          }),
        );
      }
    }
  }
  await Promise.all(work);
  return inventory;
}
