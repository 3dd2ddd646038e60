// Stored records of the namespace and their wire forms. A directory entry
// holds the child's attributes inline, so a listing with attributes is one
// range scan with no lookup per entry.
import type { Attr } from '../proto/index.js';
import { layoutToWire } from '../wire/index.js';
import { type LayoutRecord, layoutOfRecord } from './layout.js';

export const ROOT_INODE = 1;

export type NodeType = 'file' | 'dir' | 'symlink';

export interface NodeRecord {
  ino: number;
  type: NodeType;
  sizeBytes: number;
  mtimeMs: number;
  ctimeMs: number;
  mode: number;
  /** files: the layout; dirs: the default for new entries (root: null means the configured default). */
  layout: LayoutRecord | null;
  layoutInherited: boolean;
  /** Files: commits so far (absent in records written before it existed: 0). */
  change?: number;
  /** Owner (absent: 0, root). */
  uid?: number;
  gid?: number;
  /** Set by SetAttr only (absent: mtimeMs). */
  atimeMs?: number;
  /** Symlinks: the target as given. */
  target?: string;
  /** Extended attribute names and their value sizes; the values live under KEYS.xattr (absent: none). */
  xattrs?: Record<string, number>;
  /** Files with a dom component: bytes stored under KEYS.dom (absent: none; mds/dom.ts). */
  domStored?: number;
}

/** Who creates an entry and its permission bits (0: the type's default). */
export interface Owner {
  mode: number;
  uid: number;
  gid: number;
}

export const NO_OWNER: Owner = { mode: 0, uid: 0, gid: 0 };

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
export const SYMLINK_MODE = 0o120777;
/** The permission bits of a mode (setuid, setgid, sticky, rwx); the rest is the type. */
export const PERMISSION_BITS = 0o7777;

const DEFAULT_MODE = { file: FILE_MODE, dir: DIR_MODE, symlink: SYMLINK_MODE } as const;

/** The type bits of `type` with the permission bits of `mode`. */
export function modeOf(type: NodeType, mode: number): number {
  const base = DEFAULT_MODE[type];
  if (type === 'symlink' || mode === 0) return base;
  return (base & ~PERMISSION_BITS) | (mode & PERMISSION_BITS);
}

export function newNode(
  ino: number,
  type: NodeType,
  layout: LayoutRecord | null,
  inherited: boolean,
  nowMs: number,
  owner: Owner = NO_OWNER,
): NodeRecord {
  const node: NodeRecord = {
    ino,
    type,
    sizeBytes: 0,
    mtimeMs: nowMs,
    ctimeMs: nowMs,
    mode: modeOf(type, owner.mode),
    layout,
    layoutInherited: inherited,
  };
  if (owner.uid !== 0) node.uid = owner.uid;
  if (owner.gid !== 0) node.gid = owner.gid;
  return node;
}

const TYPE_TO_WIRE = {
  file: 'FILE_TYPE_FILE',
  dir: 'FILE_TYPE_DIRECTORY',
  symlink: 'FILE_TYPE_SYMLINK',
} as const;

export function typeToWire(type: NodeType): (typeof TYPE_TO_WIRE)[NodeType] {
  return TYPE_TO_WIRE[type];
}

export function toAttr(node: NodeRecord, rootDefault: LayoutRecord): Attr {
  const layout = node.layout ?? (node.ino === ROOT_INODE ? rootDefault : null);
  return {
    inode: node.ino,
    type: typeToWire(node.type),
    size: node.type === 'symlink' ? Buffer.byteLength(node.target ?? '') : node.sizeBytes,
    mtimeMs: node.mtimeMs,
    ctimeMs: node.ctimeMs,
    mode: node.mode,
    nlink: node.type === 'dir' ? 2 : 1,
    layout: layout ? layoutToWire(layoutOfRecord(layout), layout.poolId) : null,
    layoutInherited: node.layoutInherited,
    change: node.change ?? 0,
    uid: node.uid ?? 0,
    gid: node.gid ?? 0,
    atimeMs: node.atimeMs ?? node.mtimeMs,
    symlinkTarget: node.target ?? '',
  };
}
