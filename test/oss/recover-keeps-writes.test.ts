// A recovery copy that fails on an object its target lacked when the task listed it (OssCore and a
// real OST; the sources are played by the test). A fill (mode `all`) leaves the object alone: a
// client write may have created it since, the only copy of that write's ec chunk at its position.
// Before, the failed copy deleted it as a partial copy of its own, and the fill's next attempt
// merged the old holder's chunk into the empty object: an acknowledged write lost on its member
// (chaos --seed 2 --minutes 3, PG 2/4 placed back on ost 2). A repair of a missing copy (mode
// `absent`) still deletes the partial copy it made (its next attempt would take it as present),
// unless a client write reached it meanwhile.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { silentLogger } from '../../common/logging.js';
import { OstFaults } from '../../oss/faults.js';
import { MapView } from '../../oss/map-view.js';
import { OssMetrics } from '../../oss/metrics.js';
import { OssCore } from '../../oss/ops.js';
import { RECOVERY_SLICE_BYTES } from '../../oss/recovery/limits.js';
import { Recoverer, type RecoverMode, type RecoverRequest } from '../../oss/recovery/recover-pg.js';
import type { SourcePool } from '../../oss/recovery/sources.js';
import { Ost } from '../../oss/store/ost.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('stripefs-recover-keeps-');
let ost: Ost;
let core: OssCore;
/** The source's version of every object it lists; client writes here are stamped newer. */
const SOURCE_VERSION = 1_000;
const CLIENT_STAMP = 2_000;
const ref = (objectId: string) => ({ ostId: 0, objectId, poolId: 1, pg: 0, mapEpoch: 0 });

beforeAll(async () => {
  ost = await Ost.open({ dir: tmp.dir, name: 'ost-0', capacityBytes: 1 << 30, fsync: false });
  await ost.assignId(0);
  core = new OssCore(
    [{ ost, faults: new OstFaults(1) }],
    new MapView(),
    new OssMetrics(() => [], false),
    silentLogger(),
  );
});
afterAll(async () => {
  await ost?.close();
  tmp.remove();
});

function clientWrite(objectId: string, data: Buffer): Promise<unknown> {
  async function* body() {
    yield { data };
  }
  return core.write(ref(objectId), 0, data.length, crc32c(data), false, body(), undefined, {
    stamp: CLIENT_STAMP,
  });
}

/**
 * One source listing `objectId` (`size` bytes): its reads serve `served` slices, then the next one
 * first runs `meanwhile` and fails.
 */
function sourceOf(
  objectId: string,
  size: number,
  served: number,
  meanwhile: () => Promise<unknown>,
): SourcePool {
  let reads = 0;
  const pool = {
    list: async () => [{ objectId, size, version: SOURCE_VERSION }],
    statVersion: async () => SOURCE_VERSION,
    bulkOf: () => ({
      readStamped: async (_ref: unknown, _offset: number, length: number) => {
        if (reads++ < served) return { data: Buffer.alloc(length, 7), stamps: undefined };
        await meanwhile();
        throw new StripeError('REQ_UNAVAILABLE', 'the source went away');
      },
    }),
  };
  return pool as unknown as SourcePool;
}

function request(mode: RecoverMode, objectIds: string[] = []): RecoverRequest {
  return {
    poolId: 1,
    pg: 0,
    targetOstId: 0,
    position: 0,
    rule: { kind: 'replicated' },
    sources: [{ ostId: 1, grpcAddress: 'source:1', bulkAddress: 'source:2', position: 1, inPlacement: true }],
    mapEpoch: 0,
    bytesPerSec: 0,
    mode,
    objectIds,
  };
}

it('a failed fill keeps the object a client write created on its target meanwhile', async () => {
  const written = Buffer.alloc(4096, 9);
  const recoverer = new Recoverer(
    core,
    sourceOf('f', 4096, 0, () => clientWrite('f', written)),
    silentLogger(),
  );
  await expect(recoverer.recoverPg(request('all'))).rejects.toThrow(/not recovered/);
  const meta = await ost.stat('f');
  expect(meta?.version).toBe(CLIENT_STAMP);
  expect(meta?.size).toBe(written.length);
});

it('a failed repair of a missing copy removes the partial copy it made', async () => {
  const size = RECOVERY_SLICE_BYTES + 4096;
  const recoverer = new Recoverer(
    core,
    sourceOf('p', size, 1, async () => undefined),
    silentLogger(),
  );
  await expect(recoverer.recoverPg(request('absent', ['p']))).rejects.toThrow(/not recovered/);
  expect(await ost.stat('p')).toBeUndefined();
});

it('a failed repair of a missing copy keeps it once a client write reached it', async () => {
  const size = RECOVERY_SLICE_BYTES + 4096;
  const written = Buffer.alloc(4096, 5);
  const recoverer = new Recoverer(
    core,
    sourceOf('q', size, 1, () => clientWrite('q', written)),
    silentLogger(),
  );
  await expect(recoverer.recoverPg(request('absent', ['q']))).rejects.toThrow(/not recovered/);
  expect((await ost.stat('q'))?.version).toBe(CLIENT_STAMP);
});
