// Stored records of the namespace and their wire forms. A directory entry
// holds the child's attributes inline, so a listing with attributes is one
// range scan with no lookup per entry.
import type { Attr } from '../proto/index.js';
import { type LayoutRecord, layoutToWire } from './layout.js';

export const ROOT_INODE = 1;

export interface NodeRecord {
  ino: number;
  type: 'file' | 'dir';
  sizeBytes: number;
  mtimeMs: number;
  ctimeMs: number;
  mode: number;
  /** files: the layout; dirs: the default for new entries (root: null means the configured default). */
  layout: LayoutRecord | null;
  layoutInherited: boolean;
  /** Files: commits so far (absent in records written before it existed: 0). */
  change?: number;
}

export interface BackPointer {
  parent: number;
  name: string;
}

/** A removed file whose objects must be deleted on the OSSs. */
export interface DestroyRecord {
  ino: number;
  layout: LayoutRecord;
  queuedAtMs: number;
}

export const FILE_MODE = 0o100644;
export const DIR_MODE = 0o040755;

export function newNode(
  ino: number,
  type: 'file' | 'dir',
  layout: LayoutRecord | null,
  inherited: boolean,
  nowMs: number,
): NodeRecord {
  return {
    ino,
    type,
    sizeBytes: 0,
    mtimeMs: nowMs,
    ctimeMs: nowMs,
    mode: type === 'file' ? FILE_MODE : DIR_MODE,
    layout,
    layoutInherited: inherited,
  };
}

export function toAttr(node: NodeRecord, rootDefault: LayoutRecord): Attr {
  const layout = node.layout ?? (node.ino === ROOT_INODE ? rootDefault : null);
  return {
    inode: node.ino,
    type: node.type === 'file' ? 'FILE_TYPE_FILE' : 'FILE_TYPE_DIRECTORY',
    size: node.sizeBytes,
    mtimeMs: node.mtimeMs,
    ctimeMs: node.ctimeMs,
    mode: node.mode,
    nlink: node.type === 'file' ? 1 : 2,
    layout: layout ? layoutToWire(layout) : null,
    layoutInherited: node.layoutInherited,
    change: node.change ?? 0,
  };
}
