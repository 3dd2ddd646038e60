// The chaos checker on hand-written histories: each must pass or must fail
// with the named kind of violation, and the slice it prints must show it.
import { describe, expect, it } from 'vitest';
import { checkHistory, sliceOf } from './checker.js';
import { CELL_BAD, decodeUnit, writeContents } from './contents.js';
import type { HistoryEvent } from './history.js';

const UNIT = 65_536;
const F = '/f';

/** A small language for histories: w(op, unit, units) invokes a write, r(op) a read, ok/fail end them. */
const file: HistoryEvent = { type: 'file', file: F, layout: 'replicated', unitBytes: UNIT };
const w = (op: number, unit = 0, units = 1): HistoryEvent => ({
  type: 'invoke',
  op,
  kind: 'write',
  file: F,
  offsetBytes: unit * UNIT,
  lengthBytes: units * UNIT,
});
const r = (op: number, final = false): HistoryEvent => ({
  type: 'invoke',
  op,
  kind: 'read',
  file: F,
  ...(final ? { final } : {}),
});
const ok = (op: number): HistoryEvent => ({ type: 'ok', op });
const saw = (
  op: number,
  units: number[],
  sizeBytes = units.length * UNIT,
  offsetBytes = 0,
): HistoryEvent => ({
  type: 'ok',
  op,
  units,
  sizeBytes,
  offsetBytes,
});
const fail = (op: number): HistoryEvent => ({ type: 'fail', op, error: 'IO_FAILED: test' });
const fault = (what: string): HistoryEvent => ({ type: 'fault', what });

const kinds = (events: HistoryEvent[]) => checkHistory(events).violations.map((v) => v.kind);

describe('histories that must pass', () => {
  it('a read after a write returns it; a read of an empty file returns nothing', () => {
    expect(kinds([file, r(1), saw(1, [], 0), w(2), ok(2), r(3), saw(3, [2])])).toEqual([]);
  });

  it('a read concurrent with a write may return the old or the new bytes', () => {
    const h = [file, w(1), ok(1), w(2), r(3), saw(3, [1]), r(4), saw(4, [2]), ok(2)];
    expect(kinds(h)).toEqual([]);
  });

  it('a failed write may or may not be there, until an acknowledged write replaces it', () => {
    const h = [
      file,
      w(1),
      ok(1),
      w(2),
      fail(2),
      r(3),
      saw(3, [2]),
      r(4),
      saw(4, [1]),
      w(5),
      ok(5),
      r(6),
      saw(6, [5]),
    ];
    expect(kinds(h)).toEqual([]);
  });

  it('per unit: two writes of different units both show, a read from a later unit counts from there', () => {
    const h = [
      file,
      w(1, 0, 2),
      ok(1),
      w(2, 1),
      ok(2),
      r(3),
      saw(3, [1, 2]),
      r(4),
      saw(4, [2], 2 * UNIT, UNIT),
    ];
    expect(kinds(h)).toEqual([]);
  });

  it('a final read after the faults returns the last acknowledged writes', () => {
    const h = [
      file,
      w(1, 0, 2),
      ok(1),
      w(2, 1),
      fault('start kill-oss oss1'),
      ok(2),
      fault('end'),
      r(3, true),
      saw(3, [1, 2]),
    ];
    expect(kinds(h)).toEqual([]);
  });

  it('a write that never ended (the run stopped) may show in any later read', () => {
    expect(kinds([file, w(1), ok(1), w(2), r(3), saw(3, [2]), r(4), saw(4, [1])])).toEqual([]);
  });
});

describe('histories that must fail', () => {
  it('stale: a read returns a write replaced before it began', () => {
    const h = [file, w(1), ok(1), w(2), ok(2), r(3), saw(3, [1])];
    const { violations } = checkHistory(h);
    expect(violations.map((v) => v.kind)).toEqual(['stale']);
    expect(violations[0]?.message).toContain('write 2 replaced it');
    // The slice: the read and both writes, each invoke and end.
    expect(sliceOf(h, violations[0]!).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('stale: a failed write replaced by an acknowledged one comes back', () => {
    expect(kinds([file, w(1), fail(1), w(2), ok(2), r(3), saw(3, [1])])).toEqual(['stale']);
  });

  it('lost: zeros where an acknowledged write was, and a final read that fails', () => {
    expect(kinds([file, w(1), ok(1), r(2), saw(2, [0])])).toEqual(['lost']);
    expect(kinds([file, w(1), ok(1), r(2, true), fail(2)])).toEqual(['unavailable']);
  });

  it('future: a read returns a write invoked after it ended', () => {
    expect(kinds([file, w(1), ok(1), r(2), saw(2, [3]), w(3), ok(3)])).toEqual(['future']);
  });

  it('misplaced: a unit holds a write that never covered it', () => {
    expect(kinds([file, w(1, 0), ok(1), w(2, 1), ok(2), r(3), saw(3, [2, 2])])).toEqual(['misplaced']);
  });

  it('corrupt: a unit mixing two writes, with the detail the reader recorded', () => {
    const h: HistoryEvent[] = [
      file,
      w(1),
      ok(1),
      w(2),
      r(3),
      {
        type: 'ok',
        op: 3,
        units: [CELL_BAD],
        sizeBytes: UNIT,
        offsetBytes: 0,
        details: { 0: 'cells of one unit disagree: w1 x64, w2 x64' },
      },
      ok(2),
    ];
    const { violations } = checkHistory(h);
    expect(violations.map((v) => v.kind)).toEqual(['corrupt']);
    expect(violations[0]?.message).toContain('w1 x64, w2 x64');
  });

  it('size: shorter than an acknowledged append, or longer than any write', () => {
    expect(kinds([file, w(1, 0, 2), ok(1), r(2), saw(2, [1], UNIT)])).toEqual(['size']);
    expect(kinds([file, w(1), ok(1), r(2), saw(2, [1], 3 * UNIT)])).toEqual(['size']);
  });

  it('malformed: an op ended twice', () => {
    expect(kinds([file, w(1), ok(1), ok(1)])).toEqual(['malformed']);
  });

  it('the slice of a violation carries the faults between its events', () => {
    const h = [
      file,
      w(1),
      ok(1),
      fault('start pause-oss oss2'),
      w(2),
      ok(2),
      fault('end pause-oss oss2'),
      r(3),
      saw(3, [1]),
    ];
    const { violations } = checkHistory(h);
    expect(sliceOf(h, violations[0]!).map((e) => e.event.type)).toEqual([
      'invoke',
      'ok',
      'fault',
      'invoke',
      'ok',
      'fault',
      'invoke',
      'ok',
    ]);
  });
});

describe('contents name the write of every byte', () => {
  it('a unit decodes to its write; zeros to 0; a flipped bit, a mix or a misplaced unit to CELL_BAD', () => {
    const a = writeContents(3, 7, UNIT, UNIT);
    expect(decodeUnit(a, 3, UNIT)).toEqual({ value: 7 });
    expect(decodeUnit(Buffer.alloc(UNIT), 3, UNIT)).toEqual({ value: 0 });
    const flipped = Buffer.from(a);
    flipped[1000] = (flipped[1000] as number) ^ 4;
    expect(decodeUnit(flipped, 3, UNIT).value).toBe(CELL_BAD);
    expect(decodeUnit(flipped, 3, UNIT).detail).toContain('corrupt x1');
    const b = writeContents(3, 8, UNIT, UNIT);
    const mixed = Buffer.concat([a.subarray(0, UNIT / 2), b.subarray(UNIT / 2)]);
    expect(decodeUnit(mixed, 3, UNIT).detail).toBe('cells of one unit disagree: w7 x64, w8 x64');
    expect(decodeUnit(a, 3, 0).value).toBe(CELL_BAD);
    expect(decodeUnit(a, 4, UNIT).value).toBe(CELL_BAD);
  });
});
