// The read lease at the OSS (OssCore), on a clock the test moves: a read that finds the lease
// lapsed is served once the MDS has answered a heartbeat sent after the read began, however long
// that answer took, and refused when no such answer comes. The MDS's answers are played by the
// test through renewLease, as oss/mds-link.ts plays them in a real OSS.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { silentLogger } from '../../common/logging.js';
import { OstFaults } from '../../oss/faults.js';
import { MapView } from '../../oss/map-view.js';
import { OssMetrics } from '../../oss/metrics.js';
import { OssCore } from '../../oss/ops.js';
import { Ost } from '../../oss/store/ost.js';
import { codeOf } from '../helpers/errors.js';
import { readWhole, tempDir } from './helpers.js';

const tmp = tempDir('stripefs-read-lease-');
/** The lease the MDS gives (mds.heartbeatTimeoutMs of a test cluster). */
const LEASE_MS = 600;
let nowMs = 0;
const clock = { nowMs: () => nowMs, monotonicMs: () => nowMs };
let ost: Ost;
let core: OssCore;
const ref = (objectId: string) => ({ ostId: 0, objectId, poolId: 1, pg: 0, mapEpoch: 0 });
const DATA = Buffer.from('the bytes of one object');

beforeAll(async () => {
  ost = await Ost.open({ dir: tmp.dir, name: 'ost-0', capacityBytes: 1 << 30, fsync: false });
  await ost.assignId(0);
  core = new OssCore(
    [{ ost, faults: new OstFaults(1) }],
    new MapView(),
    new OssMetrics(() => [], false),
    silentLogger(),
    clock,
  );
  core.applyStaleCopies([], { sentAtMs: nowMs, readLeaseMs: LEASE_MS });
  async function* body() {
    yield { data: DATA };
  }
  for (const id of ['a', 'b']) await core.write(ref(id), 0, DATA.length, crc32c(DATA), false, body());
});
afterAll(async () => {
  await ost?.close();
  tmp.remove();
});

function read(objectId: string): Promise<Buffer> {
  return readWhole(core, ref(objectId), DATA.length);
}

/** An MDS that answers each heartbeat `answerMs` after it was sent, listing `stale` copies. */
function mdsAnswering(answerMs: number, stale: string[] = []): { heartbeats: () => number } {
  let heartbeats = 0;
  core.renewLease = async () => {
    heartbeats++;
    const sentAtMs = nowMs;
    await Promise.resolve();
    nowMs += answerMs;
    core.applyStaleCopies(stale.length > 0 ? [{ ostId: 0, objectIds: stale }] : [], {
      sentAtMs,
      readLeaseMs: LEASE_MS,
    });
  };
  return { heartbeats: () => heartbeats };
}

it('serves a read once a heartbeat sent after it began is answered, even after longer than the lease', async () => {
  nowMs += 2 * LEASE_MS; // the lease lapsed
  expect(core.leaseHolds()).toBe(false);
  // A loaded MDS: the answer comes 1.5 leases after the heartbeat was sent, so the lease it
  // grants has lapsed again by the time it arrives.
  const mds = mdsAnswering(1.5 * LEASE_MS);
  expect((await read('a')).equals(DATA)).toBe(true);
  expect(mds.heartbeats()).toBe(1);
  expect(core.leaseHolds()).toBe(false);
  expect(core.leaseRefusals).toBe(0);
});

it('refuses the copies the answer lists, and serves the others', async () => {
  nowMs += 2 * LEASE_MS;
  mdsAnswering(1.5 * LEASE_MS, ['b']);
  expect(await codeOf(read('b'))).toBe('OBJ_STALE');
  nowMs += 2 * LEASE_MS;
  expect((await read('a')).equals(DATA)).toBe(true);
});

it('refuses with REQ_UNAVAILABLE when the MDS does not answer', async () => {
  nowMs += 2 * LEASE_MS;
  const refusedBefore = core.leaseRefusals;
  let heartbeats = 0;
  core.renewLease = async () => {
    heartbeats++; // the call failed: nothing applied
  };
  expect(await codeOf(read('a'))).toBe('REQ_UNAVAILABLE');
  expect(heartbeats).toBe(1);
  expect(core.leaseRefusals).toBe(refusedBefore + 1);
});

it('asks again when the answer that came was to a heartbeat sent before the read began', async () => {
  nowMs += 2 * LEASE_MS;
  const sentBeforeReadMs = nowMs - 1; // a heartbeat in flight since before the read
  let heartbeats = 0;
  core.renewLease = async () => {
    heartbeats++;
    const sentAtMs = heartbeats === 1 ? sentBeforeReadMs : nowMs;
    await Promise.resolve();
    nowMs += 1.5 * LEASE_MS;
    core.applyStaleCopies([], { sentAtMs, readLeaseMs: LEASE_MS });
  };
  expect((await read('a')).equals(DATA)).toBe(true);
  expect(heartbeats).toBe(2);
});
