// The whole-PG stale marks of an OSS (oss/stale-pgs.ts), driven by a clock
// the test sets: a mark refuses reads of every object of its PG on its OST
// only; an answer to a call sent after a mark that no longer lists it clears
// it; an answer to a call sent before the mark (it may predate the MDS's
// record) clears nothing made since.
import { describe, expect, it } from 'vitest';
import { StalePgs } from '../../oss/stale-pgs.js';
import { codeOf } from '../helpers/errors.js';

function clockAt(start: number) {
  const clock = { ms: start, nowMs: () => clock.ms, monotonicMs: () => clock.ms };
  return clock;
}

describe('whole-PG stale marks', () => {
  it('refuse reads of the marked PG on the marked OST only', async () => {
    const marks = new StalePgs(clockAt(100));
    marks.mark(3, [{ poolId: 1, pg: 7 }]);
    expect(await codeOf(() => marks.check(3, 'ost3', { objectId: '9.0', poolId: 1, pg: 7 }))).toBe(
      'OBJ_STALE',
    );
    expect(await codeOf(() => marks.check(3, 'ost3', { objectId: '9.1', poolId: 1, pg: 6 }))).toBe('OK');
    expect(await codeOf(() => marks.check(4, 'ost4', { objectId: '9.0', poolId: 1, pg: 7 }))).toBe('OK');
    expect(marks.count(3)).toBe(1);
  });

  it('are cleared by an answer to a later call that no longer lists them, not by an older one', () => {
    const clock = clockAt(100);
    const marks = new StalePgs(clock);
    const sentBefore = clock.ms;
    clock.ms = 150;
    marks.mark(3, [{ poolId: 1, pg: 7 }]); // MarkStale after that call was sent
    clock.ms = 200;
    marks.replace([3, 4], [], sentBefore); // its answer may predate the record: kept
    expect(marks.count(3)).toBe(1);
    const sentAfter = clock.ms;
    clock.ms = 250;
    marks.replace([3, 4], [{ ostId: 3, pgs: [{ poolId: 1, pg: 7 }] }], sentAfter); // still listed: kept
    expect(marks.count(3)).toBe(1);
    marks.replace([3, 4], [{ ostId: 4, pgs: [{ poolId: 2, pg: 1 }] }], clock.ms + 1); // gone at the MDS
    expect(marks.count(3)).toBe(0);
    expect(marks.count(4)).toBe(1);
  });
});
