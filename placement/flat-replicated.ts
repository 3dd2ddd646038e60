import { assert } from './errors.js';
import { scanDomains } from './flat-draw.js';
import { type FlatLayout, inputState } from './layout.js';
import type { Tracer } from './types.js';

/** Attempt number of the single draw of replicated rules; replacements reuse the same draw. */
const REPLICATED_ATTEMPT = 0;

/** Index of the domain with the largest key among those not yet taken; -1 if none is drawable. */
function bestFreeDomain(keys: Float64Array, taken: Uint8Array): number {
  let best = -1;
  let bestKey = Number.NEGATIVE_INFINITY;
  for (let d = 0; d < keys.length; d++) {
    if (taken[d] === 0 && keys[d]! > bestKey) {
      bestKey = keys[d]!;
      best = d;
    }
  }
  return best;
}

/**
 * replicated(n, failureDomain), firstn semantics, one draw per leaf:
 * 1. every leaf draws once; a domain's key is its best leaf's draw (the domain's own
 *    exponential race, so P(domain first) = its weight share);
 * 2. the n domains with the largest keys, best first, are the replica set (weighted sampling
 *    without replacement), each represented by its best leaf;
 * 3. a member whose leaf is out is replaced in place by the best in leaf among its own domain
 *    and the domains no other member holds. Out never changes which domains are drawn, so
 *    marking an OST out moves only the copies it held.
 * Changing one leaf's weight changes only that leaf's draw, so copies move only to or from it.
 * Writes the members, best first, to out[0..count) and returns count (size when complete);
 * allocates nothing.
 */
export function placeReplicatedFlat(
  layout: FlatLayout,
  size: number,
  x: number,
  out: Int32Array,
  trace?: Tracer,
): number {
  const hx = inputState(x);
  scanDomains(layout, hx, REPLICATED_ATTEMPT);
  const { keyAll, bestAll, keyIn, bestIn, held, leafIn } = layout;
  const chosen = layout.posDomain; // scratch: the domains drawn, best first
  const finalDomains = layout.posLeaf; // scratch: the domains kept after out replacement
  held.fill(0);
  let chosenCount = 0;
  for (; chosenCount < size; chosenCount++) {
    const d = bestFreeDomain(keyAll, held);
    if (d < 0) break;
    held[d] = 1;
    chosen[chosenCount] = d;
  }
  let count = 0;
  for (let rank = 0; rank < chosenCount; rank++) {
    const d = chosen[rank]!;
    const leaf = bestAll[d]!;
    trace?.(domainStep(layout, rank, d, 'accepted'));
    if (leafIn[leaf] === 1) {
      finalDomains[count] = d;
      out[count++] = pushLeaf(layout, rank, d, leaf, trace);
      continue;
    }
    trace?.(leafStep(layout, rank, d, leaf, 'rejected', 'out'));
    held[d] = 0; // the member's own domain competes for its replacement
    const r = bestFreeDomain(keyIn, held);
    if (r < 0 || bestIn[r]! < 0) {
      held[d] = 1;
      trace?.({ ...domainStep(layout, rank, d, 'rejected'), reason: 'no-leaf', detail: 'no in OST left' });
      continue;
    }
    held[r] = 1;
    trace?.({ ...domainStep(layout, rank, r, 'accepted'), reason: 'replacement' });
    finalDomains[count] = r;
    out[count++] = pushLeaf(layout, rank, r, bestIn[r]!, trace);
  }
  assertDistinct(finalDomains, count);
  return count;
}

function pushLeaf(layout: FlatLayout, rank: number, d: number, leaf: number, trace?: Tracer): number {
  if (trace) {
    trace(leafStep(layout, rank, d, leaf, 'accepted'));
    if (layout.leafUp[leaf] === 0) {
      trace({
        ...leafStep(layout, rank, d, leaf, 'note'),
        reason: 'down-but-in',
        detail: 'kept: down but in',
      });
    }
  }
  return layout.leafIds[leaf]!;
}

function domainStep(layout: FlatLayout, rank: number, d: number, outcome: 'accepted' | 'rejected') {
  return {
    slot: rank,
    attempt: REPLICATED_ATTEMPT,
    level: layout.domainType,
    bucket: layout.rootName,
    candidate: layout.domainNames[d]!,
    candidateId: d,
    outcome,
    detail: `domain key = best leaf draw ${layout.keyAll[d]!.toFixed(0)}`,
  } as const;
}

function leafStep(
  layout: FlatLayout,
  rank: number,
  d: number,
  leaf: number,
  outcome: 'accepted' | 'rejected' | 'note',
  reason?: 'out',
) {
  return {
    slot: rank,
    attempt: REPLICATED_ATTEMPT,
    level: 'ost',
    bucket: layout.domainNames[d]!,
    candidate: layout.leafNames[leaf]!,
    candidateId: layout.leafIds[leaf]!,
    outcome,
    ...(reason ? { reason } : {}),
  };
}

/** Post-condition checked on every call: never two members in one failure domain (holes are -1). */
export function assertDistinct(domains: ArrayLike<number>, count: number): void {
  for (let i = 0; i < count; i++) {
    const d = domains[i]!;
    if (d < 0) continue;
    for (let j = i + 1; j < count; j++) {
      // the message is built only on failure: this runs n^2 / 2 times per placement
      if (domains[j] === d) assert(false, `two members in one failure domain (domain index ${d})`);
    }
  }
}
