// The latency an OSS reports in its heartbeat (the MDS's slow-disk detector
// compares these p50s) is the OST's own service time: a reader slow to take
// the spans or a writer slow to send its bytes does not make a healthy OST
// look slow, while latency the OST itself adds (the latency knob) still counts.
// Real OST (object file, classic-level index) under the real request layer.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { silentLogger } from '../../common/logging.js';
import { OstFaults } from '../../oss/faults.js';
import { MapView } from '../../oss/map-view.js';
import { OssMetrics } from '../../oss/metrics.js';
import { OssCore } from '../../oss/ops.js';
import { Ost } from '../../oss/ost.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('stripefs-service-latency-');
afterAll(() => tmp.remove());

/**
 * Each client pause. Long enough that a busy CI host's scheduling delays inside an op (seen: 156 ms
 * of service time for 3 MiB of page-cache IO with a 150 ms pause) stay well under one pause, while
 * a pause that leaked into the service time would show whole.
 */
const PEER_PAUSE_MS = 500;

it('the heartbeat p50 leaves out time spent waiting on the client, and keeps the latency the OST adds', async () => {
  const ost = await Ost.open({ dir: tmp.dir, name: 'ost-0', capacityBytes: 1 << 30, fsync: false });
  ost.id = 0;
  const faults = new OstFaults(1);
  const metrics = new OssMetrics(() => [], false);
  const core = new OssCore([{ ost, faults }], new MapView(), metrics, silentLogger());
  try {
    const part = randomBytes(1024 * 1024);
    const data = Buffer.concat([part, part, part]);
    const ref = (objectId: string) => ({ ostId: 0, objectId, poolId: 1, pg: 0, mapEpoch: 0 });
    // A writer that pauses before each of its three pieces.
    async function* slowWriter() {
      for (let i = 0; i < 3; i++) {
        await sleep(PEER_PAUSE_MS);
        yield { data: part };
      }
    }
    const started = performance.now();
    await core.write(ref('slow-writer'), 0, data.length, crc32c(data), false, slowWriter());
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * PEER_PAUSE_MS - 5);

    // A reader that takes each span only after a pause (the object is two spans of 2 MiB).
    const got: Buffer[] = [];
    const readStarted = performance.now();
    await core.read(
      ref('slow-writer'),
      0,
      data.length,
      () => sleep(PEER_PAUSE_MS),
      async (pieces) => {
        for (const p of pieces) got.push(Buffer.from(p.data));
        pieces[pieces.length - 1]?.release?.();
        await sleep(PEER_PAUSE_MS);
      },
    );
    expect(performance.now() - readStarted).toBeGreaterThanOrEqual(3 * PEER_PAUSE_MS - 5);
    expect(Buffer.concat(got).equals(data)).toBe(true);

    const c = metrics.of(ost.name);
    expect(c.writeLatency.count()).toBe(1);
    expect(c.readLatency.count()).toBe(1);
    // Without the client's pauses each op is a few MiB of page-cache IO: far under one pause,
    // while the whole op took three of them.
    expect(c.writeLatency.p50()).toBeLessThan(PEER_PAUSE_MS);
    expect(c.readLatency.p50()).toBeLessThan(PEER_PAUSE_MS);

    // Latency the OST adds is service time and is reported.
    faults.set({ latencyMs: PEER_PAUSE_MS });
    await core.read(
      ref('slow-writer'),
      0,
      4096,
      () => undefined,
      (pieces) => pieces[pieces.length - 1]?.release?.(),
    );
    await core.read(
      ref('slow-writer'),
      0,
      4096,
      () => undefined,
      (pieces) => pieces[pieces.length - 1]?.release?.(),
    );
    expect(c.readLatency.count()).toBe(3);
    expect(c.readLatency.p50()).toBeGreaterThanOrEqual(PEER_PAUSE_MS - 5);
  } finally {
    await ost.close();
  }
});
