// Where every object of a file should be and how many bytes it should hold,
// from the layout, the committed size and the map (no lookup at the MDS):
// raid0/replicated objects by their stripe, ec chunks by their position.

import { locateEcChunks, locateObject } from '../../client/locate.js';
import type { MapView } from '../../client/map.js';
import { ecChunkObjectBytes, objectDataBytes } from '../../client/striping.js';
import type { FileEntry } from './scan.js';

export interface ExpectedCopy {
  ostId: number;
  objectId: string;
  poolId: number;
  pg: number;
  /** Bytes the committed size says this copy holds at least. */
  bytes: number;
}

/** The copies that protect the same bytes: replicas of one object, or the k+m chunks of an ec file. */
export interface ObjectGroup {
  file: FileEntry;
  /** The object id (replicated) or the ec group key `<inode>.0`. */
  id: string;
  kind: 'replicas' | 'ec';
  copies: ExpectedCopy[];
  /** Good copies needed to read (and rebuild) the group: 1, or k. */
  needed: number;
  /** ec positions the placement could not fill (holes). */
  holes: number;
}

export function expectedGroups(view: MapView, file: FileEntry): ObjectGroup[] {
  const { layout } = file.fileLayout;
  if (layout.pattern === 'ec') {
    const targets = locateEcChunks(view, file.fileLayout, file.inode);
    const bytes = ecChunkObjectBytes(layout, file.size);
    const copies = targets.flatMap((t) =>
      t.osts.map((ostId) => ({ ostId, objectId: t.objectId, poolId: t.poolId, pg: t.pg, bytes })),
    );
    return [
      {
        file,
        id: `${file.inode}.0`,
        kind: 'ec',
        copies,
        needed: layout.k ?? 1,
        holes: targets.filter((t) => t.osts.length === 0).length,
      },
    ];
  }
  const groups: ObjectGroup[] = [];
  for (let i = 0; i < (layout.stripeCount ?? 1); i++) {
    const t = locateObject(view, file.fileLayout, file.inode, i);
    const bytes = objectDataBytes(layout, file.size, i);
    groups.push({
      file,
      id: t.objectId,
      kind: 'replicas',
      copies: t.osts.map((ostId) => ({ ostId, objectId: t.objectId, poolId: t.poolId, pg: t.pg, bytes })),
      needed: 1,
      holes: (layout.replicas ?? 1) - t.osts.length,
    });
  }
  return groups;
}

/** The inode an object id belongs to (`<inode>.<i>` or `<inode>.0.c<j>`), or undefined for a foreign id. */
export function inodeOfObject(objectId: string): number | undefined {
  const match = /^(\d+)\.\d+(?:\.c\d+)?$/.exec(objectId);
  return match ? Number(match[1]) : undefined;
}
