// Statahead's decisions, pure: from the names a directory listed (if this
// client listed it) and the entries a caller stats or opens, whether the scan
// follows a pattern and which names to fetch ahead. Two patterns, as Lustre's
// statahead and agl see them: the listing's order (readdir, then stat or open
// of each entry), and names that count up (img_000041.jpg, img_000042.jpg ...).
// A scan is a pattern after STATAHEAD_STREAK_MIN steps in a row; one access
// off the pattern ends it. Names are fetched a batch at a time, at most
// `batchesAhead` batches ahead of what was fetched but not yet reached (the
// next batch is asked for once less than that minus half a batch is left).

/** Steps in a row that make a scan a pattern. */
export const STATAHEAD_STREAK_MIN = 2;
/** Digits a counting name may carry (a longer run is not a counter). */
const COUNTER_DIGITS_MAX = 15;

export interface ScanState {
  /** The listing's names in order (undefined: this client did not list the directory). */
  listed: readonly string[] | undefined;
  /** Where the last access was in the listing (-1: not in it). */
  lastIndex: number;
  /** The last access as a counting name. */
  lastCounter: Counter | undefined;
  streak: number;
  /** Listing index or counter value fetched up to (exclusive). */
  aheadTo: number;
  /** Which pattern `aheadTo` follows. */
  aheadBy: 'listing' | 'counter' | undefined;
}

interface Counter {
  prefix: string;
  value: number;
  digits: number;
  suffix: string;
}

export function newScan(listed?: readonly string[]): ScanState {
  return { listed, lastIndex: -1, lastCounter: undefined, streak: 0, aheadTo: 0, aheadBy: undefined };
}

function counterOf(name: string): Counter | undefined {
  const match = /^(.*?)(\d{1,15})(\D*)$/.exec(name);
  if (!match) return undefined;
  const digits = (match[2] as string).length;
  if (digits > COUNTER_DIGITS_MAX) return undefined;
  return { prefix: match[1] as string, value: Number(match[2]), digits, suffix: match[3] as string };
}

function nameOf(c: Counter, value: number): string {
  return `${c.prefix}${String(value).padStart(c.digits, '0')}${c.suffix}`;
}

function follows(last: Counter | undefined, next: Counter | undefined): boolean {
  return (
    last !== undefined &&
    next !== undefined &&
    next.value === last.value + 1 &&
    next.prefix === last.prefix &&
    next.suffix === last.suffix &&
    (next.digits === last.digits || String(next.value).length === next.digits)
  );
}

/**
 * Where `name` is in a listing (names in byte order, as readdir returns them): the next one after
 * `after` first, else a binary search; -1 when absent (a name whose UTF-16 order differs from its
 * byte order may be missed: that only costs its statahead).
 */
export function indexIn(listed: readonly string[], name: string, after: number): number {
  if (listed[after + 1] === name) return after + 1;
  let lo = 0;
  let hi = listed.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((listed[mid] as string) < name) lo = mid + 1;
    else hi = mid;
  }
  return listed[lo] === name ? lo : -1;
}

/**
 * One stat or open of `name` in the directory: the next state and the names to fetch ahead (may be
 * none); for names that follow the listing, `after` is the listed name just before them ('' at its
 * start), where a listing page of them begins.
 */
export function onAccess(
  state: ScanState,
  name: string,
  batchEntries: number,
  batchesAhead = 1,
): { state: ScanState; fetch: string[]; after?: string } {
  const index = state.listed ? indexIn(state.listed, name, state.lastIndex) : -1;
  const counter = counterOf(name);
  const inOrder = index > 0 && index === state.lastIndex + 1;
  const counting = !inOrder && follows(state.lastCounter, counter);
  const streak = inOrder || counting ? state.streak + 1 : 0;
  const by = inOrder ? 'listing' : counting ? 'counter' : undefined;
  const next: ScanState = { ...state, lastIndex: index, lastCounter: counter, streak };
  if (by === undefined || streak < STATAHEAD_STREAK_MIN || batchEntries <= 0) {
    return { state: { ...next, aheadTo: 0, aheadBy: undefined }, fetch: [] };
  }
  const at = by === 'listing' ? index : (counter as Counter).value;
  const from = next.aheadBy === by && next.aheadTo > at ? next.aheadTo : at + 1;
  // Fetch once what was fetched ahead runs low, never more than batchesAhead batches ahead.
  if (from - at > batchEntries * (batchesAhead - 0.5)) return { state: next, fetch: [] };
  const to =
    by === 'listing' ? Math.min(from + batchEntries, state.listed?.length ?? 0) : from + batchEntries;
  const fetch: string[] = [];
  for (let v = from; v < to; v++)
    fetch.push(by === 'listing' ? (state.listed?.[v] as string) : nameOf(counter as Counter, v));
  const ahead: ScanState = { ...next, aheadTo: Math.max(to, from), aheadBy: by };
  if (by === 'counter') return { state: ahead, fetch };
  return { state: ahead, fetch, after: from > 0 ? (state.listed?.[from - 1] as string) : '' };
}
