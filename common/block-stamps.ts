// Block stamps: with every read an OSS answers, for each checksum block the
// bytes come from, the stamp of the client write whose bytes the block holds
// (a recovery copy keeps its source's; 0 when none is known: a hole, or bytes
// written before stamps). Every chunk of one ec stripe write carries that
// write's stamp and a stripe unit is a whole number of blocks, so ec chunks
// whose blocks show the same stamps hold the same write: only those may be
// decoded together (docs/ARCHITECTURE.md, "A rebuild decodes chunks of one
// write"). Pure.

/** The stamps of the blocks (blockBytes each) of a range, from the block its offset lies in. */
export type BlockStamps = readonly number[];

/** Blocks of a stamped range at most (a read of 4 GiB at 64 KiB blocks). */
export const BLOCK_STAMPS_MAX = 65_536;

/**
 * The stamps of the part [partOffset, partOffset + partLength) of a range read from `rangeOffset`
 * whose stamps are `stamps`; undefined when the part is not inside what they cover.
 */
export function partStamps(
  stamps: BlockStamps,
  rangeOffset: number,
  partOffset: number,
  partLength: number,
  blockBytes: number,
): BlockStamps | undefined {
  if (partLength <= 0) return [];
  const first = Math.floor(partOffset / blockBytes) - Math.floor(rangeOffset / blockBytes);
  const last = Math.floor((partOffset + partLength - 1) / blockBytes) - Math.floor(rangeOffset / blockBytes);
  if (first < 0 || last >= stamps.length) return undefined;
  return stamps.slice(first, last + 1);
}

export function sameStamps(a: BlockStamps, b: BlockStamps): boolean {
  return a.length === b.length && a.every((stamp, i) => stamp === b[i]);
}

/** A key equal for equal stamps (to group reads by the write they hold). */
export function stampsKey(stamps: BlockStamps): string {
  return stamps.join(',');
}

/** The newest stamp among them (what orders two groups of chunks). */
export function newestStamp(stamps: BlockStamps): number {
  let newest = 0;
  for (const stamp of stamps) if (stamp > newest) newest = stamp;
  return newest;
}

/** An ec chunk read as a decode input: its position, its block stamps (undefined: none known), and whether it is a placed member. */
export interface StampedInput {
  position: number;
  stamps: BlockStamps | undefined;
  /** A member of the PG's current placement (default): it holds the last acknowledged write or a newer one. */
  current?: boolean;
}

interface Agreement {
  positions: number[];
  newest: number;
  current: boolean;
}

function agreements(inputs: readonly StampedInput[]): Agreement[] {
  const groups = new Map<string, Agreement>();
  for (const input of inputs) {
    const key = input.stamps === undefined ? 'unknown' : stampsKey(input.stamps);
    const group = groups.get(key) ?? {
      positions: [],
      newest: input.stamps ? newestStamp(input.stamps) : -1,
      current: false,
    };
    group.positions.push(input.position);
    group.current ||= input.current !== false;
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * The positions to decode from: k chunks that hold one write (equal block stamps), from the group
 * with the newest stamp when several have k, and never a group of old holders alone (chunks not
 * `current`: a PG's old holder receives no writes once the PG moved, so its chunk may be older
 * than the placed ones); undefined when no k qualify. Chunks of two writes never meet in one
 * decode: during a stripe write some chunks hold the new write and some the old, and after a
 * failed one for good (RAID's write hole); decoding across them gives bytes of neither. A placed
 * chunk that can be read holds the last acknowledged write or a newer one (a member that missed a
 * write refuses reads until repaired), so whichever group of them has k is one a read may return.
 * Chunks from an OSS from before stamps (none known) form one group, as before stamps.
 */
export function consistentInputs(inputs: readonly StampedInput[], k: number): number[] | undefined {
  let best: Agreement | undefined;
  for (const group of agreements(inputs))
    if (group.positions.length >= k && group.current && (!best || group.newest > best.newest)) best = group;
  return best?.positions.slice(0, k);
}

/** The most of `inputs` that hold one write (how far the best group is from k). */
export function largestAgreement(inputs: readonly StampedInput[]): number {
  return Math.max(0, ...agreements(inputs).map((g) => g.positions.length));
}
