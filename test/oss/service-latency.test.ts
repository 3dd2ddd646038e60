// The latency an OSS reports in its heartbeat (the MDS's slow-disk detector
// compares these p50s) is the OST's own service time: a reader slow to take
// the spans or a writer slow to send its bytes does not make a healthy OST
// look slow, while latency the OST itself adds (the latency knob) still counts.
// Real OST (object file, classic-level index) under the real request layer, timed
// by a clock the test moves, so the figures do not depend on the machine's load.
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { silentLogger } from '../../common/logging.js';
import { OstFaults } from '../../oss/faults.js';
import { MapView } from '../../oss/map-view.js';
import { OssMetrics } from '../../oss/metrics.js';
import { OssCore } from '../../oss/ops.js';
import { Ost } from '../../oss/store/ost.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('stripefs-service-latency-');
afterAll(() => tmp.remove());

/** Each client pause, and the latency knob: any value works, the clock is the test's. */
const PEER_PAUSE_MS = 500;

/**
 * A clock that moves only when the test says: the peer's pauses and the latency knob
 * advance it, the OST's own IO does not. The measured figures are then exact whatever
 * the machine's load: a pause leaked into the service time shows as a whole pause.
 */
function manualClock() {
  let nowMs = 0;
  return {
    clock: { nowMs: () => nowMs, monotonicMs: () => nowMs },
    pause: async (ms: number): Promise<void> => {
      await Promise.resolve();
      nowMs += ms;
    },
  };
}

it('the heartbeat p50 leaves out time spent waiting on the client, and keeps the latency the OST adds', async () => {
  const { clock, pause } = manualClock();
  const ost = await Ost.open({ dir: tmp.dir, name: 'ost-0', capacityBytes: 1 << 30, fsync: false });
  await ost.assignId(0);
  const faults = new OstFaults(1, pause);
  const metrics = new OssMetrics(() => [], false);
  const core = new OssCore([{ ost, faults }], new MapView(), metrics, silentLogger(), clock);
  core.applyStaleCopies([]); // as the MDS's registration answer would: no copy missed writes
  try {
    const part = randomBytes(1024 * 1024);
    const data = Buffer.concat([part, part, part]);
    const ref = (objectId: string) => ({ ostId: 0, objectId, poolId: 1, pg: 0, mapEpoch: 0 });
    // A writer that pauses before each of its three pieces.
    async function* slowWriter() {
      for (let i = 0; i < 3; i++) {
        await pause(PEER_PAUSE_MS);
        yield { data: part };
      }
    }
    await core.write(ref('slow-writer'), 0, data.length, crc32c(data), false, slowWriter());

    // A reader that takes each span only after a pause (the object is two spans of 2 MiB).
    const got: Buffer[] = [];
    let readerPauses = 0;
    await core.read(
      ref('slow-writer'),
      0,
      data.length,
      () => {
        readerPauses++;
        return pause(PEER_PAUSE_MS);
      },
      async (pieces) => {
        for (const p of pieces) got.push(Buffer.from(p.data));
        pieces[pieces.length - 1]?.release?.();
        readerPauses++;
        await pause(PEER_PAUSE_MS);
      },
    );
    expect(readerPauses).toBe(3);
    expect(Buffer.concat(got).equals(data)).toBe(true);

    const c = metrics.of(ost.name);
    expect(c.writeLatency.count()).toBe(1);
    expect(c.readLatency.count()).toBe(1);
    // Every moment of both ops was the peer's: none of it is service time.
    expect(c.writeLatency.p50()).toBe(0);
    expect(c.readLatency.p50()).toBe(0);

    // Latency the OST adds is service time and is reported.
    faults.set({ latencyMs: PEER_PAUSE_MS });
    for (let i = 0; i < 2; i++)
      await core.read(
        ref('slow-writer'),
        0,
        4096,
        () => undefined,
        (pieces) => pieces[pieces.length - 1]?.release?.(),
      );
    expect(c.readLatency.count()).toBe(3);
    expect(c.readLatency.p50()).toBe(PEER_PAUSE_MS);
  } finally {
    await ost.close();
  }
});
