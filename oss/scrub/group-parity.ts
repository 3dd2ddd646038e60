// The parity part of an ec group's verdict: read every chunk of the group in
// slices (over the bulk path, at the scrub's rate), recompute the parity of
// each slice (parity.ts) and name the one chunk that explains every mismatch,
// or call the group unfixable when no single chunk does.
import type { TokenBucket } from '../recovery/token-bucket.js';
import { SCRUB_PARITY_SLICE_BYTES } from './limits.js';
import { checkParity } from './parity.js';
import type { ScrubMember } from './pg-scrub.js';
import type { CopyDigest, Verdict } from './verdict.js';

export type SliceReader = (member: ScrubMember, offset: number, length: number) => Promise<Buffer>;

function unfixable(detail: string): Verdict {
  return { authority: undefined, bad: [], unfixable: detail };
}

/** `copies`: the chunks' digests, all alike (chunkVerdict found nothing), one per member. */
export async function groupParityVerdict(
  members: readonly ScrubMember[],
  k: number,
  m: number,
  copies: readonly CopyDigest[],
  bucket: TokenBucket,
  readSlice: SliceReader,
): Promise<Verdict> {
  const size = copies[0]!.size;
  const width = k + m;
  const culprits = new Set<number>();
  for (let offset = 0; offset < size; offset += SCRUB_PARITY_SLICE_BYTES) {
    const length = Math.min(SCRUB_PARITY_SLICE_BYTES, size - offset);
    await bucket.take(length * width);
    const shards = Buffer.alloc(width * length);
    await Promise.all(
      members.map(async (member) => {
        (await readSlice(member, offset, length)).copy(shards, member.position * length);
      }),
    );
    const checked = checkParity(shards, k, m);
    if (checked.ok) continue;
    if (checked.culprit === undefined)
      return unfixable(
        `parity of bytes ${offset}+${length} does not match the data, no single chunk explains it`,
      );
    culprits.add(checked.culprit);
  }
  if (culprits.size === 0) return { authority: copies[0], bad: [] };
  if (culprits.size > 1) return unfixable(`chunks ${[...culprits].join(', ')} disagree in different slices`);
  const position = [...culprits][0]!;
  const culprit = copies.find((c) => c.position === position)!;
  const detail = `chunk disagrees with the other ${width - 1}: the stripe rebuilt without it matches them all`;
  return {
    authority: copies.find((c) => c.position !== position),
    bad: [{ ostId: culprit.ostId, position, problem: 'parity', detail }],
  };
}
