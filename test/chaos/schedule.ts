// The seeded fault schedule of a chaos run: a pure function of (seed, the
// cluster's shape, the run's length) to a list of episodes, each a fault
// applied at a planned time and undone after a planned duration. Three
// tracks run side by side, each one episode at a time:
//   host  one OSS at a time: SIGKILL then revive, SIGSTOP then SIGCONT, its
//         network namespace's link down then up (where the run has one), or
//         the store's crash site (a write's data on disk, its index commit
//         not: the process dies, and is revived)
//   mds   SIGKILL of the MDS, started again on its ports
//   ost   one OST at a time: out then in, reweight to a fraction then back,
//         or fault knobs (latency with jitter, corrupt reads: bitrot on the
//         wire, read and write failure rates, failing fsyncs), cleared after
// One host fault at a time keeps every replicated:3 and ec k+2 object above
// min_size (writes may still fail; no acknowledged write may be lost). The
// same seed and shape give the same schedule; when each episode really
// starts depends on the machine (an OSS start can take seconds at load).
import { type Random, seededRandom } from '../../common/random.js';

export type FaultAction =
  | { kind: 'kill-oss'; oss: string }
  | { kind: 'pause-oss'; oss: string }
  | { kind: 'partition'; oss: string }
  | { kind: 'crash-site'; oss: string; ost: number }
  | { kind: 'kill-mds' }
  | { kind: 'out'; ost: number }
  | { kind: 'reweight'; ost: number; fraction: number }
  | { kind: 'knobs'; ost: number; knobs: Record<string, number> };

export interface Episode {
  track: 'host' | 'mds' | 'ost';
  startMs: number;
  durationMs: number;
  action: FaultAction;
}

export interface ScheduleShape {
  /** OSS ids with the OSTs each serves. */
  oss: { id: string; osts: number[] }[];
  /** The OSS in its own network namespace, when the run could make one. */
  partitionable?: string;
  /** Faults stop at this time (ms after the workload starts). */
  durationMs: number;
  /** Keep only these kinds of episode (drawn as usual, then filtered: the kept ones keep their times). */
  only?: FaultAction['kind'][];
}

export const FAULT_KINDS: FaultAction['kind'][] = [
  'kill-oss',
  'pause-oss',
  'partition',
  'crash-site',
  'kill-mds',
  'out',
  'reweight',
  'knobs',
];

/** Limits of the schedule's draws (ms): the gap before an episode and its length, per track. */
export const SCHEDULE_LIMITS = {
  warmupMs: 2_000,
  host: { gapMs: [1_000, 4_000], durationMs: [2_000, 8_000] },
  mds: { gapMs: [6_000, 20_000], durationMs: [1_000, 4_000] },
  ost: { gapMs: [500, 4_000], durationMs: [2_000, 9_000] },
  /** Episodes per track at most (a bound on the loop, far above what any run length draws). */
  episodesPerTrackMax: 10_000,
} as const;

const between = (random: Random, [low, high]: readonly [number, number]): number =>
  low + random.int(high - low + 1);
const pick = <T>(random: Random, items: readonly T[]): T => items[random.int(items.length)] as T;

function hostAction(random: Random, shape: ScheduleShape): FaultAction {
  const oss = pick(random, shape.oss);
  const kinds = ['kill-oss', 'kill-oss', 'pause-oss', 'pause-oss', 'crash-site'] as const;
  const kind = shape.partitionable && random.int(4) === 0 ? 'partition' : pick(random, kinds);
  if (kind === 'partition') return { kind, oss: shape.partitionable as string };
  if (kind === 'crash-site') return { kind, oss: oss.id, ost: pick(random, oss.osts) };
  return { kind, oss: oss.id };
}

function ostKnobs(random: Random): Record<string, number> {
  const seed = random.int(1 << 30);
  switch (random.int(5)) {
    case 0:
      return { latencyMs: between(random, [20, 200]), jitterMs: between(random, [0, 100]), seed };
    case 1:
      return { corruptReadRate: 0.2 + random.int(6) / 10, seed };
    case 2:
      return { readFailRate: 0.1 + random.int(5) / 10, seed };
    case 3:
      return { writeFailRate: 0.1 + random.int(3) / 10, seed };
    default:
      return { fsyncFailRate: 0.2 + random.int(5) / 10, seed };
  }
}

function ostAction(random: Random, shape: ScheduleShape): FaultAction {
  const ost = pick(random, pick(random, shape.oss).osts);
  const roll = random.int(6);
  if (roll === 0) return { kind: 'out', ost };
  if (roll === 1) return { kind: 'reweight', ost, fraction: pick(random, [0, 0.25, 0.5]) };
  return { kind: 'knobs', ost, knobs: ostKnobs(random) };
}

function track(
  random: Random,
  name: Episode['track'],
  shape: ScheduleShape,
  draw: () => FaultAction,
): Episode[] {
  const limits = SCHEDULE_LIMITS[name];
  const episodes: Episode[] = [];
  let at = SCHEDULE_LIMITS.warmupMs;
  for (let n = 0; n < SCHEDULE_LIMITS.episodesPerTrackMax; n++) {
    const startMs = at + between(random, limits.gapMs);
    const durationMs = between(random, limits.durationMs);
    if (startMs + durationMs > shape.durationMs) break;
    episodes.push({ track: name, startMs, durationMs, action: draw() });
    at = startMs + durationMs;
  }
  return episodes;
}

/** Every episode of a run, ordered by planned start. */
export function planSchedule(seed: number, shape: ScheduleShape): Episode[] {
  if (shape.oss.length === 0) throw new Error('a schedule needs at least one OSS');
  // One generator per track, each from the run's seed: a track's draws never shift another's.
  const seeded = (salt: number) => seededRandom((seed ^ Math.imul(salt, 0x9e3779b1)) >>> 0);
  const host = seeded(1);
  const mds = seeded(2);
  const ost = seeded(3);
  return [
    ...track(host, 'host', shape, () => hostAction(host, shape)),
    ...track(mds, 'mds', shape, () => ({ kind: 'kill-mds' })),
    ...track(ost, 'ost', shape, () => ostAction(ost, shape)),
  ]
    .filter((e) => !shape.only || shape.only.includes(e.action.kind))
    .sort((a, b) => a.startMs - b.startMs || a.track.localeCompare(b.track));
}

/** One line per episode: what a run prints before it starts. */
export function describeEpisode(e: Episode): string {
  const { kind, ...rest } = e.action;
  const target = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`)
    .join(' ');
  return `${(e.startMs / 1000).toFixed(1)}s +${(e.durationMs / 1000).toFixed(1)}s ${e.track} ${kind} ${target}`;
}
