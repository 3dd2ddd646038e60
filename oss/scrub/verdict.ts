// The pure core of deep scrub: from what every member says about its copy of
// one object (replicated) or its chunk of one group (ec), decide which copy
// is authoritative and which copies are wrong. No IO.
//
// Replicated: the authority is a readable copy of the highest version (the
// highest writer's stamp applied; recovery copies take their source's, see
// WriteVersion in oss/store/object-store.ts). Copies of that version that disagree are
// settled by a strict majority of (size, content crc); a tie is unfixable.
// A readable copy with other content is stale (older version), or of another
// size, or of other content; a copy with the authority's content but another
// version is left alone (nothing a reader could see differs).
//
// ec: chunks of a group are written together, so they share size and version.
// A chunk that is missing, fails its block checksums, has an older version or
// another size than the newest chunks is bad; when all chunks look alike the
// parity is recomputed from the data (parity.ts).

export type Problem = 'missing' | 'checksum' | 'stale' | 'size' | 'content' | 'parity' | 'unfixable';

export interface CopyDigest {
  ostId: number;
  /** ec: chunk position; replicated: rank in the placement. */
  position: number;
  found: boolean;
  size: number;
  version: number;
  crc32c: number;
  /** Empty when every block verified. */
  errorCode: string;
}

export interface BadCopy {
  ostId: number;
  position: number;
  problem: Problem;
  detail: string;
}

export interface Verdict {
  /** The copy to repair from (replicated), or undefined when none is trusted. */
  authority: CopyDigest | undefined;
  bad: BadCopy[];
  /** Set when the copies disagree and no copy can be trusted. */
  unfixable?: string;
}

const readable = (d: CopyDigest): boolean => d.found && d.errorCode === '';

function unreadable(d: CopyDigest): BadCopy {
  return d.found
    ? { ostId: d.ostId, position: d.position, problem: 'checksum', detail: d.errorCode }
    : { ostId: d.ostId, position: d.position, problem: 'missing', detail: 'no copy on this member' };
}

/** Groups copies by (size, crc); the largest group first, ties in member order. */
function byContent(copies: CopyDigest[]): CopyDigest[][] {
  const groups = new Map<string, CopyDigest[]>();
  for (const c of copies) {
    const key = `${c.size}/${c.crc32c}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()].sort((a, b) => b.length - a.length);
}

export function replicaVerdict(digests: readonly CopyDigest[]): Verdict {
  const good = digests.filter(readable);
  if (!digests.some((d) => d.found)) return { authority: undefined, bad: [] }; // gone everywhere (deleted)
  const bad = digests.filter((d) => !readable(d)).map(unreadable);
  if (good.length === 0) return { authority: undefined, bad, unfixable: 'no readable copy' };
  const newest = Math.max(...good.map((d) => d.version));
  const groups = byContent(good.filter((d) => d.version === newest));
  if (groups.length > 1 && groups[0]!.length === groups[1]!.length) {
    const detail = `${groups.length} different contents at version ${newest}, none in the majority`;
    return { authority: undefined, bad, unfixable: detail };
  }
  const authority = groups[0]![0]!;
  for (const d of good) {
    if (d.size === authority.size && d.crc32c === authority.crc32c) continue;
    const problem: Problem =
      d.version < authority.version ? 'stale' : d.size !== authority.size ? 'size' : 'content';
    bad.push({
      ostId: d.ostId,
      position: d.position,
      problem,
      detail: `version ${d.version} size ${d.size} crc ${hex(d.crc32c)}; authority ost${authority.ostId} version ${authority.version} size ${authority.size} crc ${hex(authority.crc32c)}`,
    });
  }
  return { authority, bad };
}

/** Chunk-level check of an ec group; `k` good chunks are needed to repair the rest. */
export function chunkVerdict(digests: readonly CopyDigest[], k: number): Verdict {
  if (!digests.some((d) => d.found)) return { authority: undefined, bad: [] };
  const good = digests.filter(readable);
  const bad = digests.filter((d) => !readable(d)).map(unreadable);
  if (good.length > 0) {
    const newest = Math.max(...good.map((d) => d.version));
    const sizes = byContent(good.filter((d) => d.version === newest).map((d) => ({ ...d, crc32c: 0 })));
    const size = sizes[0]![0]!.size;
    for (const d of good) {
      if (d.version < newest)
        bad.push({ ...at(d), problem: 'stale', detail: `version ${d.version}, the group's is ${newest}` });
      else if (d.size !== size)
        bad.push({ ...at(d), problem: 'size', detail: `size ${d.size}, the group's is ${size}` });
    }
  }
  const trusted = digests.length - bad.length;
  const authority = good.find((d) => !bad.some((b) => b.ostId === d.ostId && b.position === d.position));
  if (bad.length > 0 && trusted < k)
    return { authority, bad, unfixable: `only ${trusted} good chunks, ${k} needed to rebuild` };
  return { authority, bad };
}

const at = (d: CopyDigest) => ({ ostId: d.ostId, position: d.position });
const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');
