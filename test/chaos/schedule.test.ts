// The fault schedule is a pure function of the seed: the same seed gives the
// same episodes, another seed others, and the tracks keep their limits.
import { expect, it } from 'vitest';
import { planSchedule, SCHEDULE_LIMITS, type ScheduleShape } from './schedule.js';

const SHAPE: ScheduleShape = {
  oss: [0, 1, 2, 3].map((i) => ({ id: `oss${i}`, osts: [2 * i, 2 * i + 1] })),
  partitionable: 'oss3',
  durationMs: 10 * 60_000,
};

it('the same seed replays the same schedule; another seed draws another', () => {
  expect(planSchedule(42, SHAPE)).toEqual(planSchedule(42, SHAPE));
  expect(planSchedule(43, SHAPE)).not.toEqual(planSchedule(42, SHAPE));
});

it('one episode at a time per track, inside the run, every kind of fault drawn', () => {
  const schedule = planSchedule(7, SHAPE);
  for (const track of ['host', 'mds', 'ost'] as const) {
    const episodes = schedule.filter((e) => e.track === track);
    expect(episodes.length).toBeGreaterThan(0);
    for (let i = 1; i < episodes.length; i++) {
      const before = episodes[i - 1]!;
      expect(episodes[i]!.startMs).toBeGreaterThanOrEqual(before.startMs + before.durationMs);
    }
  }
  for (const e of schedule) {
    expect(e.startMs).toBeGreaterThanOrEqual(SCHEDULE_LIMITS.warmupMs);
    expect(e.startMs + e.durationMs).toBeLessThanOrEqual(SHAPE.durationMs);
  }
  const kinds = new Set(schedule.map((e) => e.action.kind));
  expect([...kinds].sort()).toEqual(
    ['crash-site', 'kill-mds', 'kill-oss', 'knobs', 'out', 'partition', 'pause-oss', 'reweight'].sort(),
  );
  const knobs = new Set(
    schedule.flatMap((e) => (e.action.kind === 'knobs' ? Object.keys(e.action.knobs) : [])),
  );
  for (const knob of ['latencyMs', 'corruptReadRate', 'readFailRate', 'writeFailRate', 'fsyncFailRate'])
    expect(knobs).toContain(knob);
});

it('partitions only where the run has a namespace, and only of that host', () => {
  const without = planSchedule(7, { ...SHAPE, partitionable: undefined });
  expect(without.some((e) => e.action.kind === 'partition')).toBe(false);
  const partitions = planSchedule(7, SHAPE).filter((e) => e.action.kind === 'partition');
  expect(partitions.every((e) => e.action.kind === 'partition' && e.action.oss === 'oss3')).toBe(true);
});

it('a run kept to some kinds of fault keeps those episodes of the full schedule, at their times', () => {
  const full = planSchedule(11, SHAPE);
  const only = planSchedule(11, { ...SHAPE, only: ['kill-mds', 'out'] });
  expect(only.length).toBeGreaterThan(0);
  expect(only).toEqual(full.filter((e) => e.action.kind === 'kill-mds' || e.action.kind === 'out'));
});
