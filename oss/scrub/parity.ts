// ec parity check of one slice of a group, pure apart from the codec: encode
// the parity again from the k data chunks and compare. When they differ and
// m >= 2, the one chunk that disagrees can be found: rebuild the stripe
// without chunk i (from the k+m-1 others) and keep i when every other chunk
// then matches. With m = 1, or more than one bad chunk, no single chunk
// explains the mismatch and the group is reported unfixable.
import { encodeParity, reconstruct } from '../../common/erasure.js';

export type ParityResult = { ok: true } | { ok: false; culprit: number | undefined };

function sameExcept(a: Buffer, b: Buffer, length: number, width: number, except: number): boolean {
  for (let j = 0; j < width; j++) {
    if (j === except) continue;
    if (!a.subarray(j * length, (j + 1) * length).equals(b.subarray(j * length, (j + 1) * length)))
      return false;
  }
  return true;
}

/** `shards`: k+m chunks of `length` bytes each, chunk i at i * length. */
export function checkParity(shards: Buffer, k: number, m: number): ParityResult {
  const width = k + m;
  const length = shards.length / width;
  if (!Number.isInteger(length) || length === 0)
    throw new Error(`shards of ${shards.length} bytes for ${k}+${m}`);
  const again = Buffer.from(shards);
  encodeParity(again, k, m);
  if (again.equals(shards)) return { ok: true };
  if (m < 2) return { ok: false, culprit: undefined };
  const candidates: number[] = [];
  for (let i = 0; i < width; i++) {
    const trial = Buffer.from(shards);
    if (i < k) {
      const present = Array.from({ length: width }, (_, j) => j !== i);
      trial.fill(0, i * length, (i + 1) * length);
      reconstruct(trial, k, m, present);
    }
    encodeParity(trial, k, m);
    if (sameExcept(trial, shards, length, width, i)) candidates.push(i);
  }
  return { ok: false, culprit: candidates.length === 1 ? candidates[0] : undefined };
}
