// getLayout(): the layout plus, like `lfs getstripe`, every object of a file
// with its placement group and OSTs under the current map.
import type { Attr__Output } from '../proto/index.js';
import { type Layout, layoutFromWire, wholeLayoutFromWire } from './layout.js';
import { locateEcChunks, locateObject } from './locate.js';
import type { MapView } from './map.js';

export interface LayoutReport {
  path?: string;
  type: 'file' | 'directory';
  layout: Layout | undefined;
  poolId?: number;
  /** Files with a part on the MDS (dom): how many of this file's bytes live there. */
  mdsBytes?: number;
  mapEpoch: number;
  /** Files: raid0/replicated objects (OSTs primary first) or ec chunks by position. */
  objects: { objectId: string; pg: number; osts: number[] }[];
}

export function describeLayout(attr: Attr__Output, view: MapView): LayoutReport {
  const type = attr.type === 'FILE_TYPE_DIRECTORY' ? 'directory' : 'file';
  const fileLayout = layoutFromWire(attr.layout);
  const whole = wholeLayoutFromWire(attr.layout) ?? undefined;
  if (!fileLayout) return { type, layout: undefined, mapEpoch: view.epoch, objects: [] };
  if (type === 'directory') return { type, layout: whole, mapEpoch: view.epoch, objects: [] };
  const { layout } = fileLayout;
  const mdsBytes = fileLayout.domBytes ? { mdsBytes: Math.min(attr.size, fileLayout.domBytes) } : {};
  const targets =
    layout.pattern === 'ec'
      ? locateEcChunks(view, fileLayout, attr.inode)
      : Array.from({ length: layout.stripeCount }, (_, i) => locateObject(view, fileLayout, attr.inode, i));
  return {
    type,
    layout: whole,
    ...mdsBytes,
    poolId: fileLayout.poolId,
    mapEpoch: view.epoch,
    objects: targets.map((t) => ({ objectId: t.objectId, pg: t.pg, osts: t.osts })),
  };
}
