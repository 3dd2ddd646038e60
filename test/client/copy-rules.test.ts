// The client's copy rules (client/copy-rules.ts) as scenarios: each row is what
// the read or write has seen (the map, the OSTs' health, what failed), the
// decision the rule must take, and why. The map has six OSTs 0..5, one per
// host; pool 1 is replicated:3 (min_size 2), pool 2 ec:4+2 (every PG spans all
// six OSTs; min_size 1, so a chunk may be left out while 5 members are up),
// pool 3 raid0 (one copy). The IO drivers that carry the decisions out run
// against real clusters in degraded.test, moving-reads.test and the recovery
// and fault suites.
import { describe, expect, it } from 'vitest';
import {
  copiesToWrite,
  copyRank,
  ecHolderToRead,
  ecLastResort,
  ecRunPlan,
  ecStart,
  type Failure,
  flushVerdict,
  type HealthView,
  holdersTooNew,
  holdersToRead,
  isBadCopy,
  isPastEnd,
  mayGiveUp,
  parityForRun,
  rebuildOrder,
  refusedByEvery,
  replicaVerdict,
  tryOrder,
  writeVerdict,
} from '../../client/copy-rules.js';
import type { MapView, OstEndpoint } from '../../client/map.js';
import { isTransientRequestCode } from '../../client/retry.js';
import type { ErrorCode } from '../../common/errors.js';
import { buildTopology, type Pool } from '../../placement/index.js';

const REP3: Pool = {
  id: 1,
  name: 'rep3',
  pgCount: 8,
  rule: { kind: 'replicated', size: 3, failureDomain: 'host' },
};
const EC42: Pool = {
  id: 2,
  name: 'ec42',
  pgCount: 8,
  rule: { kind: 'erasure', k: 4, m: 2, failureDomain: 'host' },
};
const RAID0: Pool = {
  id: 3,
  name: 'raid0',
  pgCount: 8,
  rule: { kind: 'replicated', size: 1, failureDomain: 'host' },
};

/** The six-OST map with the OSTs in `down` marked down. */
function viewWith(down: number[] = []): MapView {
  const map = buildTopology({ racks: 2, hostsPerRack: 3, ostsPerHost: 1 });
  const osts = new Map<number, OstEndpoint>();
  for (const o of map.osts)
    osts.set(o.id, {
      id: o.id,
      up: !down.includes(o.id),
      in: true,
      grpcAddress: `127.0.0.1:${9000 + o.id}`,
      bulkAddress: '',
      host: o.host ?? '',
    });
  return {
    epoch: map.epoch,
    map,
    pools: new Map([REP3, EC42, RAID0].map((p) => [p.id, p])),
    poolMinSizes: new Map([
      [REP3.id, 2],
      [EC42.id, 1],
      [RAID0.id, 1],
    ]),
    osts,
  };
}

/** The client's record of OST health, as a table. */
function healthWith(suspect: number[] = [], slow: number[] = []): HealthView {
  return { isSuspect: (ost) => suspect.includes(ost), isSlow: (ost) => slow.includes(ost) };
}

const f = (ost: number, code: ErrorCode): Failure => ({ ost, code });

/** Each row as [title, row], the title naming its decision and why (it.each truncates long interpolated strings). */
function scenarios<T extends { why: string }>(decision: (row: T) => string, rows: T[]): [string, T][] {
  return rows.map((row) => [`${decision(row)}: ${row.why}`, row]);
}

const show = (value: unknown): string => JSON.stringify(value) ?? 'undefined';

describe('which copy a read tries first, and which it may give up unsent', () => {
  it('orders healthy, slow, suspect, down, keeping the placement order within each', () => {
    const order = tryOrder(viewWith([4]), healthWith([1], [0]), [0, 1, 2, 3, 4]);
    expect(order).toEqual([2, 3, 0, 1, 4]);
    expect(copyRank(healthWith([], [0]), 0, true)).toBe(1);
  });

  const giveUp = scenarios(
    (r) => `give up a queued read of OST 0: ${r.expected}`,
    [
      {
        suspect: [],
        rest: [1, 2],
        down: [],
        expected: false,
        why: 'a read of an OST not suspect is always sent',
      },
      {
        suspect: [0],
        rest: [1, 2],
        down: [],
        expected: true,
        why: 'it turned suspect and a healthy copy is left to try',
      },
      {
        suspect: [0, 1],
        rest: [1, 2],
        down: [2],
        expected: false,
        why: 'every other copy is suspect or down: the only live copy is read',
      },
      { suspect: [0], rest: [0], down: [], expected: false, why: 'only itself is left (never another copy)' },
      { suspect: [0], rest: [], down: [], expected: false, why: 'nothing is left to try after it' },
    ],
  );
  it.each(giveUp)('%s', (_, { suspect, rest, down, expected }) => {
    expect(mayGiveUp(viewWith(down), healthWith(suspect), 0, rest)).toBe(expected);
  });

  const reported = scenarios(
    (r) => `a copy answering ${r.code} is reported for repair: ${r.expected}`,
    [
      { code: 'OBJ_CHECKSUM' as ErrorCode, expected: true, why: 'its bytes are corrupt' },
      { code: 'OBJ_NOT_FOUND' as ErrorCode, expected: true, why: 'the copy is missing' },
      { code: 'OBJ_SHORT' as ErrorCode, expected: true, why: 'an ec chunk lost the end of a write' },
      { code: 'REQ_TIMEOUT' as ErrorCode, expected: false, why: 'the OST is out of reach, not the copy bad' },
      { code: 'OST_DOWN' as ErrorCode, expected: false, why: 'the map marks its OST down' },
      { code: 'OBJ_STALE' as ErrorCode, expected: false, why: 'the MDS already knows and repairs it' },
    ],
  );
  it.each(reported)('%s', (_, { code, expected }) => {
    expect(isBadCopy(code)).toBe(expected);
  });

  const pastEnd = scenarios(
    (r) => `OBJ_RANGE for a read at ${r.offset} is a copy that ends before it: ${r.expected}`,
    [
      {
        offset: 4096,
        expected: true,
        why: 'a sparse file, or one truncated and grown again: a short (empty) answer',
      },
      {
        offset: 0,
        expected: false,
        why: 'a range refused from the start is a bad request, not a short copy',
      },
    ],
  );
  it.each(pastEnd)('%s', (_, { offset, expected }) => {
    expect(isPastEnd('OBJ_RANGE', offset)).toBe(expected);
    expect(isPastEnd('OBJ_NOT_FOUND', offset)).toBe(false);
  });
});

describe('a replicated read once every placed copy was tried', () => {
  const notFound = [f(0, 'OBJ_NOT_FOUND'), f(1, 'OBJ_NOT_FOUND'), f(2, 'OBJ_NOT_FOUND')];
  const nothing = { failures: [] as Failure[], short: false, holdersAsked: false, lookedAgain: false };
  const verdicts = scenarios(
    (r) => r.expected.do,
    [
      {
        seen: { ...nothing, failures: notFound },
        expected: { do: 'ask-holders', wholeOnly: false },
        why: 'no copy has it: the PG may be moving, so ask where its data is first',
      },
      {
        seen: { ...nothing, failures: notFound, holdersAsked: true },
        expected: { do: 'look-again' },
        why: 'no old holder had it either: it may have landed on its new OST meanwhile',
      },
      {
        seen: { ...nothing, failures: notFound, holdersAsked: true, lookedAgain: true },
        expected: { do: 'zeros' },
        why: 'still nothing anywhere: never written, a hole reads as zeros',
      },
      {
        seen: { ...nothing, failures: [f(0, 'OBJ_NOT_FOUND'), f(1, 'OBJ_STALE')] },
        expected: { do: 'ask-holders', wholeOnly: false },
        why: 'a stale copy awaits repair: the data may be on the old holders',
      },
      {
        seen: {
          ...nothing,
          failures: [f(0, 'OBJ_NOT_FOUND'), f(1, 'OBJ_STALE')],
          holdersAsked: true,
          lookedAgain: true,
        },
        expected: { do: 'fail-degraded' },
        why: 'a stale copy never makes a hole',
      },
      {
        seen: { ...nothing, failures: [f(0, 'OBJ_NOT_FOUND'), f(1, 'REQ_TIMEOUT')] },
        expected: { do: 'fail-degraded' },
        why: 'a copy out of reach may hold the data: degraded (retried), never zeros',
      },
      {
        seen: { ...nothing, failures: [...notFound, f(4, 'REQ_TIMEOUT')], holdersAsked: true },
        expected: { do: 'fail-degraded' },
        why: 'an old holder out of reach may hold the data',
      },
      {
        seen: nothing,
        expected: { do: 'fail-degraded' },
        why: 'no copy to read at all says nothing about the data',
      },
      {
        seen: { ...nothing, failures: [f(1, 'REQ_TIMEOUT')], short: true },
        expected: { do: 'ask-holders', wholeOnly: true },
        why: 'a short copy may be one still being filled while its PG moves: only a whole old copy will do',
      },
      {
        seen: { ...nothing, short: true, holdersAsked: true },
        expected: { do: 'look-again' },
        why: 'no old holder has the whole range: the placed copies may have filled up meanwhile',
      },
      {
        seen: { ...nothing, short: true, holdersAsked: true, lookedAgain: true },
        expected: { do: 'serve-short' },
        why: 'still short everywhere: a sparse tail, served zero padded',
      },
    ],
  );
  it.each(verdicts)('%s', (_, { seen, expected }) => {
    expect(replicaVerdict(seen)).toEqual(expected);
  });

  it('a read every copy refused for the client itself fails with that refusal, not as degraded IO', () => {
    expect(
      refusedByEvery([
        { ost: 1, code: 'TICKET_REVOKED' },
        { ost: 2, code: 'TICKET_REVOKED' },
      ]),
    ).toBe('TICKET_REVOKED');
    expect(refusedByEvery([{ ost: 1, code: 'AUTH_EVICTED' }])).toBe('AUTH_EVICTED');
    // One copy down or timed out: another try may read it, so the read stays degraded (retried).
    expect(
      refusedByEvery([
        { ost: 1, code: 'TICKET_REVOKED' },
        { ost: 2, code: 'REQ_TIMEOUT' },
      ]),
    ).toBeUndefined();
    expect(refusedByEvery([])).toBeUndefined();
  });

  const holders = scenarios(
    (r) => `old holders to read: ${show(r.expected)}`,
    [
      {
        answer: { holders: [3, 4, 5], clean: true, mapEpoch: 7 },
        tried: [],
        expected: [],
        why: 'a clean PG has no old holders',
      },
      {
        answer: { holders: [3, -1, 0, 5], clean: false, mapEpoch: 7 },
        tried: [0],
        expected: [3, 5],
        why: 'a moving PG: every holder not tried yet, positions without one left out',
      },
    ],
  );
  it.each(holders)('%s', (_, { answer, tried, expected }) => {
    expect(holdersToRead(answer, new Set(tried))).toEqual(expected);
  });

  it('an answer about holders for a newer map than the read used is not trusted', () => {
    expect(holdersTooNew({ holders: [], clean: true, mapEpoch: 8 }, 7)).toBe(true);
    expect(holdersTooNew({ holders: [], clean: true, mapEpoch: 7 }, 7)).toBe(false);
  });
});

describe('an ec read of one data chunk (on OST 0)', () => {
  const healthy = { down: [] as number[], suspect: [] as number[], slow: [] as number[] };
  const starts = scenarios(
    (r) => `starts with ${r.expected.do}`,
    [
      { ost: 0, ...healthy, expected: { do: 'read-chunk', ost: 0 }, why: 'its OST is up and healthy' },
      {
        ost: 0,
        ...healthy,
        down: [0],
        expected: { do: 'rebuild', why: 'down', failure: f(0, 'OST_DOWN') },
        why: 'its OST is down: rebuilt from k others, the down copy counted as a failure',
      },
      {
        ost: undefined,
        ...healthy,
        expected: { do: 'rebuild', why: 'down', failure: f(-1, 'OST_DOWN') },
        why: 'the placement has no OST for it',
      },
      {
        ost: 0,
        ...healthy,
        suspect: [0],
        expected: { do: 'rebuild', why: 'suspect' },
        why: 'k reads beat waiting out a hang',
      },
      {
        ost: 0,
        ...healthy,
        slow: [0],
        expected: { do: 'rebuild', why: 'slow' },
        why: "k reads at the others' pace beat one at a slow pace",
      },
    ],
  );
  it.each(starts)('%s', (_, { ost, down, suspect, slow, expected }) => {
    expect(ecStart(viewWith(down), healthWith(suspect, slow), ost)).toEqual(expected);
  });

  const rebuilds = scenarios(
    (r) => `a rebuild of chunk 0 reads positions ${show(r.expected)}`,
    [
      {
        chunkOsts: [0, 1, 2, 3, 4, 5],
        have: [1],
        ...healthy,
        down: [3],
        suspect: [4],
        expected: [2, 5, 4, 3],
        why: 'what the reader has is not read again; healthy first, data before parity, then suspect, then down',
      },
      {
        chunkOsts: [0, 1, undefined, 3, 4, 5],
        have: [],
        ...healthy,
        expected: [1, 3, 4, 5],
        why: 'a position without an OST cannot be read',
      },
    ],
  );
  it.each(rebuilds)('%s', (_, { chunkOsts, have, down, suspect, expected }) => {
    expect(rebuildOrder(viewWith(down), healthWith(suspect), chunkOsts, 0, new Set(have))).toEqual(expected);
  });

  const moving = { holders: [9, 8], clean: false, mapEpoch: 3 };
  const oldHolders = scenarios(
    (r) => `after a failed rebuild of position 1, read old holder ${show(r.expected)}`,
    [
      { answer: undefined, failures: [], expected: undefined, why: 'the MDS could not be asked: no guess' },
      { answer: { ...moving, clean: true }, failures: [], expected: undefined, why: 'the PG is clean' },
      { answer: moving, failures: [], expected: 8, why: 'the old holder of position 1' },
      {
        answer: moving,
        failures: [f(8, 'OBJ_NOT_FOUND')],
        expected: undefined,
        why: 'that holder already failed',
      },
      {
        answer: { ...moving, holders: [9, -1] },
        failures: [],
        expected: undefined,
        why: 'no holder of position 1',
      },
    ],
  );
  it.each(oldHolders)('%s', (_, { answer, failures, expected }) => {
    expect(ecHolderToRead(answer, 1, failures)).toBe(expected);
  });

  const lastResort = scenarios(
    (r) => `read its own chunk last: ${r.expected}`,
    [
      { down: [], failures: [], expected: true, why: 'the suspect or slow chunk passed over is still up' },
      { down: [0], failures: [], expected: false, why: 'its OST is down' },
      { down: [], failures: [f(0, 'OBJ_CHECKSUM')], expected: false, why: 'it was read and failed already' },
    ],
  );
  it.each(lastResort)('%s', (_, { down, failures, expected }) => {
    expect(ecLastResort(viewWith(down), 0, failures)).toBe(expected);
  });

  const runs = scenarios(
    (r) => `a readahead run of it is ${r.expected}`,
    [
      { ...healthy, expected: 'direct', why: 'a healthy chunk is read as it is' },
      {
        ...healthy,
        slow: [0],
        expected: 'rebuild-or-direct',
        why: 'a slow chunk is rebuilt if the siblings are at hand',
      },
      { ...healthy, suspect: [0], expected: 'rebuild', why: 'a suspect chunk is rebuilt' },
      { ...healthy, down: [0], expected: 'rebuild', why: 'a down chunk is rebuilt' },
    ],
  );
  it.each(runs)('%s', (_, { down, suspect, slow, expected }) => {
    expect(ecRunPlan(viewWith(down), healthWith(suspect, slow), 0)).toBe(expected);
  });

  const parities = scenarios(
    (r) => `a run rebuild reads parity position ${show(r.expected)}`,
    [
      { down: [], slow: [4], canReadDirect: true, expected: 5, why: 'a parity chunk that is not slow' },
      { down: [5], slow: [], canReadDirect: true, expected: 4, why: 'a down parity chunk is not read' },
      {
        down: [],
        slow: [4, 5],
        canReadDirect: true,
        expected: undefined,
        why: 'every parity chunk slow: read the slow chunk itself',
      },
      {
        down: [],
        slow: [4, 5],
        canReadDirect: false,
        expected: 4,
        why: 'every parity chunk slow and the chunk lost: a slow parity chunk will do',
      },
      { down: [4, 5], slow: [], canReadDirect: false, expected: undefined, why: 'no parity chunk is up' },
    ],
  );
  it.each(parities)('%s', (_, { down, slow, canReadDirect, expected }) => {
    expect(parityForRun(viewWith(down), healthWith([], slow), [0, 1, 2, 3, 4, 5], 4, canReadDirect)).toBe(
      expected,
    );
  });
});

describe('which copies a write goes to', () => {
  const targets = scenarios(
    (r) => `write to ${show(r.expected)}`,
    [
      { pool: REP3, osts: [0, 1, 2], down: [], expected: [0, 1, 2], why: 'all copies up: all of them' },
      {
        pool: REP3,
        osts: [0, 1, 2],
        down: [1],
        expected: [0, 2],
        why: 'one down, min_size 2 up: the down copy is left to repair',
      },
      {
        pool: REP3,
        osts: [0, 1, 2],
        down: [1, 2],
        expected: [0, 1, 2],
        why: 'below min_size every copy is tried (the map may be behind) and the write fails as before',
      },
      {
        pool: RAID0,
        osts: [1],
        down: [1],
        expected: [1],
        why: 'a raid0 object has one home and is always tried',
      },
      {
        pool: EC42,
        osts: [1],
        down: [1],
        expected: [],
        why: 'an ec chunk is left out while k + min_size (5) members of its PG are up',
      },
      {
        pool: EC42,
        osts: [1],
        down: [1, 2],
        expected: [1],
        why: 'with 4 of 6 members up an ec chunk is tried',
      },
      {
        pool: { ...REP3, id: 9 },
        osts: [0, 1, 2],
        down: [1],
        expected: [0, 1, 2],
        why: 'a pool the map does not know: no rule allows a skip',
      },
    ],
  );
  it.each(targets)('%s', (_, { pool, osts, down, expected }) => {
    expect(copiesToWrite(viewWith(down), pool.id, 0, osts)).toEqual(expected);
  });

  const writes = scenarios(
    (r) => `a write comes to ${show(r.expected)}`,
    [
      { sent: [0, 1, 2], failures: [], expected: { do: 'done', skipped: [] }, why: 'every copy stored it' },
      {
        sent: [0, 2],
        failures: [],
        expected: { do: 'done', skipped: [1] },
        why: 'the skipped copy is reported WRITE_SKIPPED',
      },
      {
        sent: [0, 1, 2],
        failures: [f(1, 'REQ_TIMEOUT')],
        expected: { do: 'fail', code: 'IO_FAILED', mapStale: false },
        why: 'a transient failure: IO_FAILED, retried',
      },
      {
        sent: [0, 1, 2],
        failures: [f(1, 'REQ_TIMEOUT'), f(2, 'OBJ_NO_SPACE')],
        expected: { do: 'fail', code: 'OBJ_NO_SPACE', mapStale: false },
        why: 'a failure no retry cures is the error',
      },
      {
        sent: [0, 1, 2],
        failures: [f(0, 'MAP_STALE')],
        expected: { do: 'fail', code: 'IO_FAILED', mapStale: true },
        why: 'an OST with a newer map: refresh it, then retry',
      },
    ],
  );
  it.each(writes)('%s', (_, { sent, failures, expected }) => {
    expect(writeVerdict([0, 1, 2], sent, failures, isTransientRequestCode)).toEqual(expected);
  });
});

describe('a flush that missed copies', () => {
  const flushes = scenarios(
    (r) => show(r.expected),
    [
      { pool: REP3, copies: 3, down: [], failures: [], expected: { do: 'done' }, why: 'every copy flushed' },
      {
        pool: REP3,
        copies: 3,
        down: [1],
        failures: [f(1, 'OST_DOWN')],
        expected: { do: 'leave-to-repair', osts: [1] },
        why: 'a copy on a down OST, min_size flushed: reported WRITE_SKIPPED, repaired once it is back',
      },
      {
        pool: REP3,
        copies: 3,
        down: [],
        failures: [f(1, 'REQ_TIMEOUT')],
        expected: { do: 'fail', flushed: 2 },
        why: 'a flush that failed on an OST still up fails',
      },
      {
        pool: REP3,
        copies: 3,
        down: [1, 2],
        failures: [f(1, 'OST_DOWN'), f(2, 'OST_DOWN')],
        expected: { do: 'fail', flushed: 1 },
        why: 'too few copies flushed for min_size',
      },
      {
        pool: RAID0,
        copies: 1,
        down: [1],
        failures: [f(1, 'OST_DOWN')],
        expected: { do: 'fail', flushed: 0 },
        why: 'a raid0 object has no other copy',
      },
      {
        pool: EC42,
        copies: 1,
        down: [1],
        failures: [f(1, 'OST_DOWN')],
        expected: { do: 'leave-to-repair', osts: [1] },
        why: 'an ec chunk on a down OST while k + min_size members are up',
      },
      {
        pool: REP3,
        copies: 3,
        down: [],
        failures: [f(1, 'OBJ_NOT_DURABLE')],
        expected: { do: 'leave-to-repair', osts: [1] },
        why: 'a copy its OST could not make durable is left to repair while min_size copies flushed',
      },
      {
        pool: REP3,
        copies: 3,
        down: [2],
        failures: [f(1, 'OBJ_NOT_DURABLE'), f(2, 'OST_DOWN')],
        expected: { do: 'fail', flushed: 1 },
        why: 'a copy not durable and one down leave too few for min_size',
      },
      {
        pool: EC42,
        copies: 1,
        down: [2],
        failures: [f(1, 'OBJ_NOT_DURABLE')],
        expected: { do: 'fail', flushed: 0 },
        why: 'an ec chunk not durable with one member down: fewer than k + min_size members left',
      },
    ],
  );
  it.each(flushes)('%s', (_, { pool, copies, down, failures, expected }) => {
    expect(flushVerdict(viewWith(down), pool.id, 0, copies, failures)).toEqual(expected);
  });
});
