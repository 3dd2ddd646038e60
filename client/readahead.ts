// Per-file readahead as a pure state machine (Lustre's per-file window): a
// sequential read grows the window from one stripe unit, doubling up to the
// per-file maximum; a random read shrinks it to a quarter (to nothing below
// one block). The driver (file-reader.ts) carries out the prefetch ranges and
// passes in how much of the global budget is left, so the sum over all files
// stays bounded.

export interface ReadaheadState {
  /** End of the previous read: a read starting here is sequential. */
  nextOffset: number;
  /** Start of the previous read, to accept forward reads inside the prefetched area. */
  lastOffset: number;
  windowBytes: number;
  /** Prefetch has been issued up to here (exclusive). */
  aheadEnd: number;
}

export interface ReadEvent {
  offset: number;
  length: number;
  fileSizeBytes: number;
  /** Initial window: one stripe unit. */
  unitBytes: number;
  /** Prefetch ranges are aligned to this (the cache block). */
  blockBytes: number;
  windowBytesMax: number;
  /** What the global readahead budget still allows right now. */
  globalAvailableBytes: number;
}

export interface PrefetchRange {
  offset: number;
  length: number;
}

export interface ReadaheadStep {
  state: ReadaheadState;
  prefetch: PrefetchRange[];
  sequential: boolean;
}

export const INITIAL_READAHEAD: ReadaheadState = {
  nextOffset: 0,
  lastOffset: 0,
  windowBytes: 0,
  aheadEnd: 0,
};

const SHRINK_FACTOR = 4;

function roundUp(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

export function onRead(state: ReadaheadState, event: ReadEvent): ReadaheadStep {
  const { offset, length, fileSizeBytes, blockBytes } = event;
  if (length < 0 || offset < 0 || blockBytes < 1) throw new Error('bad read event');
  const readEnd = offset + length;
  const sequential =
    offset === state.nextOffset ||
    (offset > state.lastOffset && offset <= Math.max(state.aheadEnd, state.nextOffset));
  if (!sequential) {
    let windowBytes = Math.floor(state.windowBytes / SHRINK_FACTOR);
    if (windowBytes < blockBytes) windowBytes = 0;
    return {
      state: { nextOffset: readEnd, lastOffset: offset, windowBytes, aheadEnd: readEnd },
      prefetch: [],
      sequential,
    };
  }
  const grown = state.windowBytes === 0 ? event.unitBytes : state.windowBytes * 2;
  const windowBytes = Math.min(event.windowBytesMax, grown);
  const aheadFrom = Math.max(state.aheadEnd, readEnd);
  const next: ReadaheadState = { nextOffset: readEnd, lastOffset: offset, windowBytes, aheadEnd: aheadFrom };
  // Top up only when less than half the window is left ahead: fewer, larger fetches.
  if (windowBytes === 0 || aheadFrom - readEnd >= windowBytes / 2)
    return { state: next, prefetch: [], sequential };
  const target = Math.min(fileSizeBytes, roundUp(readEnd + windowBytes, blockBytes));
  const wanted = Math.max(0, target - aheadFrom);
  const granted = Math.min(wanted, Math.max(0, event.globalAvailableBytes));
  if (granted === 0) return { state: next, prefetch: [], sequential };
  next.aheadEnd = aheadFrom + granted;
  return { state: next, prefetch: [{ offset: aheadFrom, length: granted }], sequential };
}
