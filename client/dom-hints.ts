// Whether a writeFile may carry its bytes in the create (create, write and
// close in one MDS round trip): only when the file's layout keeps at least
// that many bytes on the MDS. A caller's layout says so itself; for inherited
// layouts the client remembers, per directory, the part on the MDS its last
// create there was given, so a directory without one is sent no bytes after
// its first create. A wrong guess costs only bytes: the MDS stores content
// only when it fits, and says so (data_stored).
import { LIMITS } from '../common/limits.js';
import type { Attr__Output } from '../proto/index.js';
import { type Layout, layoutFromWire } from './layout.js';

/** Directories remembered at most (the map starts over when full). */
export const DOM_HINT_DIRS_MAX = 4_096;

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

export class DomHints {
  private readonly dirs = new Map<string, number>();

  /** Whether `bytes` may fit the part on the MDS of a file created at `path` (with `given`, if any). */
  mayFit(path: string, bytes: number, given: Layout | undefined): boolean {
    if (given) return given.pattern === 'dom' && bytes <= given.domBytes;
    return bytes <= (this.dirs.get(parentOf(path)) ?? LIMITS.domBytesMax);
  }

  /** What a create in the directory was given, when the file took the directory's default. */
  learn(path: string, attr: Attr__Output): void {
    if (!attr.layoutInherited) return;
    if (this.dirs.size >= DOM_HINT_DIRS_MAX) this.dirs.clear();
    this.dirs.set(parentOf(path), layoutFromWire(attr.layout)?.domBytes ?? 0);
  }
}
