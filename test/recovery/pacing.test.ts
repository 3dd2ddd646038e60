// Recovery pacing without a cluster: the MDS's cluster-wide pace (credit for
// the gaps between tasks, bounded) and the OSS's token bucket (credit, a lag
// allowance, and none of either by default). The bucket runs on a clock of the
// test's own that moves only when the bucket waits or the test says, so these
// are exact whatever else runs; test/recovery/throttle.test.ts checks the rate
// end to end.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../common/limits.js';
import { RecoveryPacer } from '../../mds/recovery/pacer.js';
import { TokenBucket } from '../../oss/recovery/token-bucket.js';

const MiB = 1 << 20;
const RATE = 4 * MiB;

describe('RecoveryPacer', () => {
  it('owes a task the gap after the bytes done so far, bounded, and nothing to a new recovery', () => {
    const pacer = new RecoveryPacer(1_000);
    expect(pacer.creditFor(RATE, 0)).toBe(0); // the first task: the pace starts now
    // It copied 4 MiB (1 s at the setting) and finished at 1.3 s; the next starts at 1.4 s.
    pacer.completed(4 * MiB, RATE, 1_300);
    expect(pacer.creditFor(RATE, 1_400)).toBe(Math.floor(RATE * 0.4));
    // A share of the setting (two PGs at once) gets the same time at its own rate.
    expect(pacer.creditFor(RATE / 2, 1_400)).toBe(Math.floor((RATE / 2) * 0.4));
    // Ahead of the pace: no credit, never a negative one.
    pacer.completed(8 * MiB, RATE, 1_500);
    expect(pacer.creditFor(RATE, 1_500)).toBe(0);
    // A long stall earns at most the bound.
    expect(pacer.creditFor(RATE, 60_000)).toBe(RATE);
    // Unthrottled: no credit, and the pace is dropped.
    pacer.completed(MiB, 0, 61_000);
    expect(pacer.creditFor(0, 61_000)).toBe(0);
    expect(pacer.creditFor(RATE, 61_500)).toBe(0);
    // Idle: the next recovery starts from nothing.
    pacer.completed(MiB, RATE, 62_000);
    pacer.idle();
    expect(pacer.creditFor(RATE, 90_000)).toBe(0);
  });

  it('defaults its bound to the OSS lag allowance', () => {
    const pacer = new RecoveryPacer();
    pacer.creditFor(RATE, 0);
    expect(pacer.creditFor(RATE, 100_000)).toBe((RATE * LIMITS.recoveryPaceLagMsMax) / 1000);
  });
});

describe('TokenBucket', () => {
  /** A clock that moves only by the bucket's waits and the test's `advance`. */
  function manualClock() {
    let nowMs = 0;
    return {
      monotonicMs: () => nowMs,
      sleep: async (ms: number) => {
        nowMs += ms;
      },
      advance: (ms: number) => {
        nowMs += ms;
      },
    };
  }
  const clock = manualClock();

  /** How long take(n) waited on the bucket's clock. */
  async function timed(bucket: TokenBucket, bytes: number): Promise<number> {
    const started = clock.monotonicMs();
    await bucket.take(bytes);
    return clock.monotonicMs() - started;
  }

  it('by default pays each slice before it goes and loses time it was not waited on', async () => {
    const bucket = new TokenBucket(RATE, { clock });
    expect(await timed(bucket, MiB)).toBe(250);
    clock.advance(500); // a slow copy
    expect(await timed(bucket, MiB)).toBe(250);
  });

  it('with a lag allowance makes up time spent elsewhere, up to the allowance', async () => {
    const bucket = new TokenBucket(RATE, { lagMsMax: 1_000, clock });
    clock.advance(300); // listing the PG
    expect(await timed(bucket, MiB)).toBe(0); // paid by the 300 ms
    expect(await timed(bucket, MiB)).toBe(200);
    clock.advance(5_000); // a stall: only 1 s of it is made up
    expect(await timed(bucket, 4 * MiB)).toBe(0);
    expect(await timed(bucket, MiB)).toBe(250);
  });

  it('lets a credit go at once, within the lag allowance', async () => {
    const credited = new TokenBucket(RATE, { creditBytes: 2 * MiB, lagMsMax: 1_000, clock });
    expect(await timed(credited, 2 * MiB)).toBe(0);
    expect(await timed(credited, MiB)).toBe(250);
    const clipped = new TokenBucket(RATE, { creditBytes: 64 * MiB, lagMsMax: 1_000, clock });
    expect(await timed(clipped, 4 * MiB)).toBe(0);
    expect(await timed(clipped, MiB)).toBe(250);
    expect(await timed(new TokenBucket(0, { creditBytes: MiB, clock }), 64 * MiB)).toBe(0);
  });
});
