// settleRange on hand-written histories: what a chaos run writes once more after the faults.
import { expect, it } from 'vitest';
import type { HistoryEvent } from './history.js';
import { settleRange } from './settle.js';

const U = 10;
const write = (op: number, offsetBytes: number, lengthBytes: number, file = '/f'): HistoryEvent => ({
  type: 'invoke',
  op,
  kind: 'write',
  file,
  offsetBytes,
  lengthBytes,
});
const ok = (op: number): HistoryEvent => ({ type: 'ok', op });
const fail = (op: number): HistoryEvent => ({ type: 'fail', op, error: 'IO_FAILED: x' });

it('nothing when every unit last written was acknowledged, even after a failed write', () => {
  const events = [write(1, 0, 40), ok(1), write(2, 10, 20), fail(2), write(3, 10, 20), ok(3)];
  expect(settleRange(events, '/f', U, U)).toBeUndefined();
});

it('from the first unit a failed write left to the end of every write, stripe aligned', () => {
  // Write 2 failed on units 2-3; write 3 (acknowledged) then covered unit 3 only.
  const events = [write(1, 0, 60), ok(1), write(2, 20, 20), fail(2), write(3, 30, 10), ok(3)];
  expect(settleRange(events, '/f', U, U)).toEqual({ file: '/f', offsetBytes: 20, lengthBytes: 40 });
  // ec: overwrites start at a stripe (2 units here).
  expect(settleRange(events, '/f', U, 2 * U)).toEqual({ file: '/f', offsetBytes: 20, lengthBytes: 40 });
  expect(settleRange([...events, write(4, 10, 10), fail(4)], '/f', U, 2 * U)).toEqual({
    file: '/f',
    offsetBytes: 0,
    lengthBytes: 60,
  });
});

it('a failed append past the end, and a write that never ended, are settled; other files are not', () => {
  const events = [write(1, 0, 20), ok(1), write(2, 20, 30), fail(2), write(3, 0, 10, '/g')];
  expect(settleRange(events, '/f', U, U)).toEqual({ file: '/f', offsetBytes: 20, lengthBytes: 30 });
  expect(settleRange(events, '/g', U, U)).toEqual({ file: '/g', offsetBytes: 0, lengthBytes: 10 });
});
