// The client's copy rules: which copy a read tries first and which it may give
// up on, when a read returns zeros, asks the PG's old holders or fails
// degraded, when an ec read rebuilds and from which chunks, which copies a
// write may skip under min_size, and what a flush that missed copies comes to.
// Each is a synchronous function of (the map view, the client's view of OST
// health, what failed) that returns what to do; the IO drivers
// (client/object-io.ts, client/ec-read.ts, client/ec-rebuild.ts) carry it
// out. No IO, no clock: test/client/copy-rules.test.ts pins them as scenarios.
import type { ErrorCode } from '../common/errors.js';
import { HOLE, placePg } from '../placement/index.js';
import type { MapView } from './map.js';
import type { PgHolders } from './mds-client.js';

/** What the rules ask of the client's record of OST health (OstHealth; a table in tests). */
export interface HealthView {
  /** Failed recently (timeout, refused, injected fault): tried after the others. */
  isSuspect(ost: number): boolean;
  /** Answers late compared with the other OSTs: read after the healthy ones. */
  isSlow(ost: number): boolean;
}

/** A copy that was not read or written, and why: its error code, or OST_DOWN when the map marks its OST down. */
export interface Failure {
  ost: number;
  code: ErrorCode;
}

/**
 * The refusal every copy answered when each refused the client itself (its ticket or its
 * identity: revoked, read-only, another file's): no other copy or later try can help, so the
 * read fails with that code, not as degraded IO (which callers retry).
 */
export function refusedByEvery(failures: readonly Failure[]): ErrorCode | undefined {
  const first = failures[0]?.code;
  const refusal = (code: ErrorCode) => code.startsWith('TICKET_') || code.startsWith('AUTH_');
  return first !== undefined && refusal(first) && failures.every((f) => refusal(f.code)) ? first : undefined;
}

export function isUp(view: MapView, ost: number | undefined): boolean {
  return ost !== undefined && (view.osts.get(ost)?.up ?? false);
}

/** Up and not suspect: worth a request now. */
export function isHealthy(view: MapView, health: HealthView, ost: number | undefined): ost is number {
  return ost !== undefined && isUp(view, ost) && !health.isSuspect(ost);
}

/** 0: up and healthy, 1: up but slow, 2: up but suspect, 3: down. */
export function copyRank(health: HealthView, ost: number, up: boolean): number {
  if (!up) return 3;
  if (health.isSuspect(ost)) return 2;
  return health.isSlow(ost) ? 1 : 0;
}

/** `osts` in the order to try them: up and healthy, slow, suspect, then down (stable within each). */
export function tryOrder(view: MapView, health: HealthView, osts: readonly number[]): number[] {
  return osts
    .map((ost, i) => ({ ost, i, rank: copyRank(health, ost, isUp(view, ost)) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((e) => e.ost);
}

/**
 * Whether a read of `ost`, queued until now, may be given up unsent: the OST turned suspect
 * meanwhile and one of `stillToTry` is up and healthy. With none, a suspect OST is still the
 * best there is, and the read of the only live copy is never given up.
 */
export function mayGiveUp(
  view: MapView,
  health: HealthView,
  ost: number,
  stillToTry: Iterable<number | undefined>,
): boolean {
  if (!health.isSuspect(ost)) return false;
  for (const other of stillToTry) if (other !== ost && isHealthy(view, health, other)) return true;
  return false;
}

/** Codes that say this copy is bad (not merely out of reach): it is reported to the MDS for repair. */
const BAD_COPY: ReadonlySet<ErrorCode> = new Set(['OBJ_CHECKSUM', 'OBJ_NOT_FOUND', 'OBJ_SHORT']);

export function isBadCopy(code: ErrorCode): boolean {
  return BAD_COPY.has(code);
}

/**
 * The OSS refuses a read that starts past the object's end (OBJ_RANGE): the copy holds none of
 * the range (a sparse file, or one truncated and grown again), a short answer like any other.
 */
export function isPastEnd(code: ErrorCode, offset: number): boolean {
  return offset > 0 && code === 'OBJ_RANGE';
}

/**
 * A copy answered for a newer map: this attempt ends, and the map is refreshed before the next.
 * Or the OSS refused this client's data-path ticket (already renewed once): every copy would, so
 * the read ends with that code at once.
 */
export function endsAttempt(code: ErrorCode): boolean {
  return code === 'MAP_STALE' || code.startsWith('TICKET_');
}

/** What a raid0/replicated read does once every placed copy was tried without a whole answer. */
export type ReplicaVerdict =
  /** Ask the MDS where the PG's data is while it moves, and read the old holders (`wholeOnly`: only a whole answer will do). */
  | { do: 'ask-holders'; wholeOnly: boolean }
  /** Read the placed copies once more: the data may have landed while the holders were asked. */
  | { do: 'look-again' }
  /** The copies end inside the range and nobody has more: a sparse tail, served zero padded. */
  | { do: 'serve-short' }
  /** Never written: a hole, read as zeros. */
  | { do: 'zeros' }
  | { do: 'fail-degraded' };

/**
 * The replicated read's verdict from what it has seen: `failures` of the placed copies (and of
 * the old holders, once asked), whether a copy answered short of the range, whether the holders
 * were asked, and whether the placed copies were already looked at again. Zeros come only from
 * answers that can be trusted: every copy anywhere said "no such object".
 */
export function replicaVerdict(seen: {
  failures: readonly Failure[];
  short: boolean;
  holdersAsked: boolean;
  lookedAgain: boolean;
}): ReplicaVerdict {
  const { failures, short, holdersAsked, lookedAgain } = seen;
  // A short copy may be a sparse tail, or one that recovery or a rebalance is still filling from
  // the start while its PG moves: then an old holder has the whole range.
  if (short) {
    if (!holdersAsked) return { do: 'ask-holders', wholeOnly: true };
    return lookedAgain ? { do: 'serve-short' } : { do: 'look-again' };
  }
  // No copy has it (or a copy is stale, awaiting repair): while the PG moves the data may sit on
  // its old holders. A stale copy never makes a hole.
  const absent =
    failures.length > 0 && failures.every((f) => f.code === 'OBJ_NOT_FOUND' || f.code === 'OBJ_STALE');
  if (absent && !holdersAsked) return { do: 'ask-holders', wholeOnly: false };
  if (absent && failures.every((f) => f.code === 'OBJ_NOT_FOUND'))
    return lookedAgain ? { do: 'zeros' } : { do: 'look-again' };
  return { do: 'fail-degraded' };
}

/** An MDS answer about a PG's holders for a newer map than the read's cannot be trusted: the newer placement may hold the data. */
export function holdersTooNew(answer: PgHolders, viewEpoch: number): boolean {
  return answer.mapEpoch > viewEpoch;
}

/** The PG's old holders to read, in the MDS's order, leaving out the OSTs already tried; none when the PG is clean. */
export function holdersToRead(answer: PgHolders, tried: ReadonlySet<number>): number[] {
  if (answer.clean) return [];
  return answer.holders.filter((id) => id >= 0 && !tried.has(id));
}

/** How an ec read of one data chunk starts. */
export type EcStart =
  | { do: 'read-chunk'; ost: number }
  /** Rebuild from k others first; `failure` when the chunk's OST is down (or has none). */
  | { do: 'rebuild'; why: 'down' | 'suspect' | 'slow'; failure?: Failure };

/**
 * A chunk on a down OST is rebuilt, and so is one on a suspect OST (rebuilding costs k reads,
 * waiting out a hang a timeout) or a slow one (k reads at the others' pace beat one at its pace).
 * The suspect or slow chunk is still read last if k others cannot be (ecLastResort).
 */
export function ecStart(view: MapView, health: HealthView, ost: number | undefined): EcStart {
  if (ost === undefined || !isUp(view, ost))
    return { do: 'rebuild', why: 'down', failure: { ost: ost ?? -1, code: 'OST_DOWN' } };
  if (health.isSuspect(ost)) return { do: 'rebuild', why: 'suspect' };
  if (health.isSlow(ost)) return { do: 'rebuild', why: 'slow' };
  return { do: 'read-chunk', ost };
}

/**
 * The chunk positions a rebuild of `chunk` reads, in order: those with an OST that the reader
 * does not already have (`have`), by their OST's health (healthy, slow, suspect, down), data
 * chunks before parity within each. `chunkOsts[j]` is the OST of position j (undefined: a hole).
 */
export function rebuildOrder(
  view: MapView,
  health: HealthView,
  chunkOsts: readonly (number | undefined)[],
  chunk: number,
  have: { has(position: number): boolean },
): number[] {
  const rank = (j: number): number => {
    const ost = chunkOsts[j] as number;
    return copyRank(health, ost, isUp(view, ost));
  };
  return chunkOsts
    .map((_, j) => j)
    .filter((j) => j !== chunk && !have.has(j) && chunkOsts[j] !== undefined)
    .sort((a, b) => rank(a) - rank(b) || a - b);
}

/** The PG's old holder of ec position `position` to read, if the PG is moving and it is one not tried yet. */
export function ecHolderToRead(
  answer: PgHolders | undefined,
  position: number,
  failures: readonly Failure[],
): number | undefined {
  const holder = answer && !answer.clean ? answer.holders[position] : undefined;
  if (holder === undefined || holder < 0 || failures.some((f) => f.ost === holder)) return undefined;
  return holder;
}

/** After a failed rebuild: the chunk's own OST, passed over as suspect or slow, is read as the last resort while it is up. */
export function ecLastResort(
  view: MapView,
  ost: number | undefined,
  failures: readonly Failure[],
): ost is number {
  return ost !== undefined && isUp(view, ost) && failures.every((f) => f.ost !== ost);
}

/**
 * How a readahead run of an ec data chunk is fetched when the reader is fetching the sibling
 * runs too: read directly from the chunk's OST; rebuilt from the sibling runs and a parity run
 * (its OST down or suspect); or rebuilt when a rebuild can be set up, else read directly (slow).
 */
export type EcRunPlan = 'direct' | 'rebuild' | 'rebuild-or-direct';

export function ecRunPlan(view: MapView, health: HealthView, ost: number | undefined): EcRunPlan {
  if (!isHealthy(view, health, ost)) return 'rebuild';
  return health.isSlow(ost) ? 'rebuild-or-direct' : 'direct';
}

/**
 * The parity position a run rebuild reads: one on a healthy OST that is not slow; failing that
 * any healthy one, unless the run may be read directly instead (`canReadDirect`); else none.
 */
export function parityForRun(
  view: MapView,
  health: HealthView,
  chunkOsts: readonly (number | undefined)[],
  k: number,
  canReadDirect: boolean,
): number | undefined {
  const usable: number[] = [];
  for (let j = k; j < chunkOsts.length; j++) if (isHealthy(view, health, chunkOsts[j])) usable.push(j);
  const fast = usable.find((j) => !health.isSlow(chunkOsts[j] as number));
  return fast ?? (canReadDirect ? undefined : usable[0]);
}

/**
 * Whether copies on down OSTs may be left to the MDS's repair (Ceph's min_size rule): a replicated
 * object with `upCopies` of its `copies` at least min_size; an ec chunk (one home) when at least
 * k + min_size members of its PG, which hold the stripe's k+m chunks, are up. Never a raid0 object.
 */
export function mayLeaveOut(
  view: MapView,
  poolId: number,
  pg: number,
  upCopies: number,
  copies: number,
  /** ec: members up that count as not there (a chunk its OST could not make durable). */
  leftOut: readonly number[] = [],
): boolean {
  const pool = view.pools.get(poolId);
  const minSize = view.poolMinSizes.get(poolId);
  if (!pool || minSize === undefined) return false;
  if (pool.rule.kind === 'replicated') return copies > 1 && upCopies >= Math.max(1, minSize);
  const members = placePg(view.map, pool, pg).osts.filter((ost) => ost !== HOLE);
  const upMembers = members.filter((ost) => isUp(view, ost) && !leftOut.includes(ost)).length;
  return members.length === pool.rule.k + pool.rule.m && upMembers >= pool.rule.k + minSize;
}

/**
 * The copies a write goes to: all of them; or, when the map says some are down, only the up ones
 * if mayLeaveOut allows. Otherwise every copy is tried (the map may be behind), and the write
 * fails as it would have.
 */
export function copiesToWrite(
  view: MapView,
  poolId: number,
  pg: number,
  osts: readonly number[],
): readonly number[] {
  const up = osts.filter((ost) => isUp(view, ost));
  if (up.length === osts.length) return osts;
  return mayLeaveOut(view, poolId, pg, up.length, osts.length) ? up : osts;
}

/** What a write to the copies `copiesToWrite` chose comes to. */
export type WriteVerdict =
  /** Every copy sent was stored; `skipped` copies missed it and are reported as WRITE_SKIPPED. */
  | { do: 'done'; skipped: number[] }
  /** `code`: the first failure a retry will not cure, else IO_FAILED; `mapStale`: refresh the map first. */
  | { do: 'fail'; code: ErrorCode; mapStale: boolean };

export function writeVerdict(
  placed: readonly number[],
  sent: readonly number[],
  failures: readonly Failure[],
  isTransient: (code: ErrorCode) => boolean,
): WriteVerdict {
  if (failures.length === 0) return { do: 'done', skipped: placed.filter((ost) => !sent.includes(ost)) };
  const final = failures.find((f) => !isTransient(f.code));
  return {
    do: 'fail',
    code: final ? final.code : 'IO_FAILED',
    mapStale: failures.some((f) => f.code === 'MAP_STALE'),
  };
}

/** What a flush of one object's written copies comes to, given those not flushed. */
export type FlushVerdict =
  | { do: 'done' }
  /**
   * The copies not flushed are on down OSTs, or their OST could not make them durable, and
   * min_size allows: reported as WRITE_SKIPPED (refused to readers), repaired later.
   */
  | { do: 'leave-to-repair'; osts: number[] }
  /** A raid0 object, too few copies flushed, or a flush that failed otherwise on an OST still up. */
  | { do: 'fail'; flushed: number };

export function flushVerdict(
  view: MapView,
  poolId: number,
  pg: number,
  copies: number,
  failures: readonly Failure[],
): FlushVerdict {
  if (failures.length === 0) return { do: 'done' };
  const flushed = copies - failures.length;
  // Copies on OSTs the map marks down are left to recovery, and so are copies an OST could not make
  // durable (a failed fsync: its flushes fail until the copy is written whole again, which the
  // repair does from a good copy); a flush that failed otherwise on an up OST fails.
  const notDurable = failures.filter((f) => f.code === 'OBJ_NOT_DURABLE').map((f) => f.ost);
  const leaveable = failures.every((f) => view.osts.get(f.ost)?.up === false || f.code === 'OBJ_NOT_DURABLE');
  if (leaveable && mayLeaveOut(view, poolId, pg, flushed, copies, notDurable))
    return { do: 'leave-to-repair', osts: failures.map((f) => f.ost) };
  return { do: 'fail', flushed };
}
