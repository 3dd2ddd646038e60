// Key order for listings over a directory tree (pure). S3 lists keys in
// UTF-8 byte order; the MDS lists a directory's names in the same order, but
// a directory `d` stands for keys `d/...`, which sort after names such as
// `d-1` or `d.txt` ('-' and '.' sort before '/'). So a directory's sort key
// is its name plus '/', and a listing resumes from the first name whose
// sort key can still follow the last key returned.
import { LIMITS } from '../../common/limits.js';
import { compareKeys, utf8Length } from '../keys.js';

/** Where a listing resumes: after this key, or after every key that starts with it (a common prefix). */
export interface After {
  key: string;
  isPrefix: boolean;
}

/** True when `key` comes after the resume point. */
export function isAfter(key: string, after: After | undefined): boolean {
  if (!after) return true;
  if (after.isPrefix && key.startsWith(after.key)) return false;
  return compareKeys(key, after.key) > 0;
}

export function sortKeyOf(name: string, isDirectory: boolean): string {
  return isDirectory ? `${name}/` : name;
}

const LAST_CODE_POINT = String.fromCodePoint(0x10ffff);

/**
 * A readdir cursor (exclusive) just below `name`: every name >= `name` comes after it, and few
 * names lie between the two (callers filter what they read anyway). The last code point is lowered
 * by one and the rest filled with the highest code point, within the MDS's name limit.
 */
export function nameBefore(name: string): string {
  if (name === '') return '';
  const points = Array.from(name);
  const last = points.pop()!.codePointAt(0)!;
  let lowered = last - 1;
  if (lowered >= 0xd800 && lowered <= 0xdfff) lowered = 0xd7ff; // no surrogates in a string of names
  if (lowered === 0x2f) lowered = 0x2e; // nor '/' (the MDS refuses it in a cursor)
  const head = points.join('') + (lowered > 0 ? String.fromCodePoint(lowered) : '');
  if (lowered <= 0) return head;
  let cursor = head;
  while (utf8Length(cursor) + 4 <= LIMITS.nameBytesMax) cursor += LAST_CODE_POINT;
  return cursor;
}

/**
 * The readdir cursor from which a directory's entries can still hold keys after `afterRelative`
 * (a key relative to the directory). A directory whose name is a prefix of the key's first segment,
 * followed there by a character below '/', sorts after the key (`d/` > `d-1`), so the cursor goes
 * back to the shortest such name.
 */
export function resumeCursor(afterRelative: string): string {
  const first = afterRelative.split('/')[0] as string;
  for (let i = 1; i < first.length; i++) {
    if (first.charCodeAt(i) < 0x2f) return nameBefore(first.slice(0, i));
  }
  return nameBefore(first);
}

/** The greater of two readdir cursors (both exclusive starts). */
export function laterCursor(a: string, b: string): string {
  return compareKeys(a, b) >= 0 ? a : b;
}
