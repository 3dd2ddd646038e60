// The pure cores of deep scrub and phased weights: the replica and chunk
// verdicts, the parity check that finds the one bad chunk, and the weight
// steps. No IO, no clock.
import { describe, expect, it } from 'vitest';
import { encodeParity } from '../../common/erasure.js';
import { nextWeight, stepsTotal, type WeightPhase } from '../../mds/recovery/weight-steps.js';
import { checkParity } from '../../oss/scrub/parity.js';
import { type CopyDigest, chunkVerdict, replicaVerdict } from '../../oss/scrub/verdict.js';

const copy = (ostId: number, over: Partial<CopyDigest> = {}): CopyDigest => ({
  ostId,
  position: ostId,
  found: true,
  size: 100,
  version: 3,
  crc32c: 0xaaaa,
  errorCode: '',
  ...over,
});
const problems = (v: ReturnType<typeof replicaVerdict>) => v.bad.map((b) => `${b.ostId}:${b.problem}`);

describe('replica verdict', () => {
  it('agreeing copies are fine, even at different versions', () => {
    expect(replicaVerdict([copy(0), copy(1), copy(2)]).bad).toEqual([]);
    expect(replicaVerdict([copy(0), copy(1, { version: 1 })]).bad).toEqual([]);
  });
  it('the newest version is the authority, even against a majority of older copies', () => {
    const v = replicaVerdict([
      copy(0, { version: 2, crc32c: 1 }),
      copy(1, { version: 2, crc32c: 1 }),
      copy(2),
    ]);
    expect(v.authority?.ostId).toBe(2);
    expect(problems(v)).toEqual(['0:stale', '1:stale']);
  });
  it('equal versions: the majority wins; a tie is unfixable', () => {
    expect(problems(replicaVerdict([copy(0, { crc32c: 1 }), copy(1), copy(2)]))).toEqual(['0:content']);
    expect(problems(replicaVerdict([copy(0, { size: 99, crc32c: 1 }), copy(1), copy(2)]))).toEqual([
      '0:size',
    ]);
    expect(replicaVerdict([copy(0, { crc32c: 1 }), copy(1)]).unfixable).toMatch(/none in the majority/);
  });
  it('missing and checksum-failing copies are bad; all bad is unfixable; gone everywhere is nothing', () => {
    const v = replicaVerdict([copy(0, { found: false }), copy(1, { errorCode: 'OBJ_CHECKSUM' }), copy(2)]);
    expect(problems(v)).toEqual(['0:missing', '1:checksum']);
    expect(v.authority?.ostId).toBe(2);
    expect(replicaVerdict([copy(0, { errorCode: 'OBJ_CHECKSUM' })]).unfixable).toBe('no readable copy');
    expect(replicaVerdict([copy(0, { found: false }), copy(1, { found: false })])).toEqual({
      authority: undefined,
      bad: [],
    });
  });
});

describe('chunk verdict', () => {
  it('flags stale, resized, missing and corrupt chunks; fewer than k good is unfixable', () => {
    const six = [0, 1, 2, 3, 4, 5].map((p) => copy(p));
    expect(chunkVerdict(six, 4).bad).toEqual([]);
    six[1] = copy(1, { version: 2, size: 50 });
    six[3] = copy(3, { size: 50 });
    six[5] = copy(5, { found: false });
    expect(problems(chunkVerdict(six, 4))).toEqual(['5:missing', '1:stale', '3:size']);
    six[0] = copy(0, { errorCode: 'OBJ_CHECKSUM' });
    expect(chunkVerdict(six, 4).unfixable).toMatch(/only 2 good chunks, 4 needed/);
  });
});

describe('parity check', () => {
  const L = 4096;
  const flip = (shards: Buffer, at: number, mask: number): void => {
    shards.writeUInt8(shards.readUInt8(at) ^ mask, at);
  };
  const stripe = (k: number, m: number): Buffer => {
    const shards = Buffer.alloc((k + m) * L);
    for (let i = 0; i < k * L; i++) shards[i] = (i * 7 + 3) & 0xff;
    encodeParity(shards, k, m);
    return shards;
  };
  it('passes a good stripe and finds the one bad chunk, data or parity, when m >= 2', () => {
    expect(checkParity(stripe(4, 2), 4, 2)).toEqual({ ok: true });
    for (const bad of [0, 2, 4, 5]) {
      const shards = stripe(4, 2);
      flip(shards, bad * L + 17, 0x5a);
      expect(checkParity(shards, 4, 2), `chunk ${bad}`).toEqual({ ok: false, culprit: bad });
    }
  });
  it('cannot tell the bad chunk with m = 1, nor with two bad chunks', () => {
    const one = stripe(4, 1);
    flip(one, L + 3, 1);
    expect(checkParity(one, 4, 1)).toEqual({ ok: false, culprit: undefined });
    const two = stripe(4, 2);
    flip(two, 3, 1);
    flip(two, 2 * L + 3, 1);
    expect(checkParity(two, 4, 2)).toEqual({ ok: false, culprit: undefined });
  });
});

describe('weight steps', () => {
  const phase = (from: number, target: number, step: number): WeightPhase => ({
    ostId: 0,
    fromWeight: from,
    targetWeight: target,
    stepWeight: step,
    stepsDone: 0,
    trigger: 'admin',
    startedAtMs: 0,
  });
  it('walks towards the target by the step and lands on it exactly', () => {
    const p = phase(1, 0, 1 / 3);
    const seen: number[] = [];
    for (let w: number | null = 1; w !== null; w = nextWeight(p, w)) seen.push(w);
    expect(seen.length).toBe(4);
    expect(seen[3]).toBe(0);
    expect(stepsTotal(p)).toBe(3);
    expect(nextWeight(phase(0.1, 0.35, 0.1), 0.3)).toBe(0.35);
    expect(nextWeight(phase(0.5, 0.2, 0.1), 0.5)).toBeCloseTo(0.4, 12);
    expect(stepsTotal(phase(0.1, 0.35, 0.1))).toBe(3);
  });
});
