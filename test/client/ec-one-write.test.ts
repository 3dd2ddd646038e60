// An ec rebuild decodes chunks of one write only. An ec:2+2 file of one
// stripe is written (w1), then overwritten whole (w2) while the OSTs of data
// chunk 0 and parity chunk 0 refuse writes: w2 fails, having reached data
// chunk 1 and parity chunk 1 only, so the stripe holds chunks of two writes
// for good (RAID's write hole). With data chunk 0 unreadable a read must
// rebuild it: from data chunk 1 and parity chunk 0 (the first two it tries)
// it would decode bytes of neither write. It must decode from chunks of one
// write (data chunk 1 and parity chunk 1: w2, a failed write a read may
// return), and with parity chunk 1 unreadable too, where no two chunks of one
// write are left, fail with a code. Before block stamps the first read
// returned a unit of neither write and the second one as well.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { type Cluster, setOstFaults, startCluster } from '../helpers/cluster.js';

const SEED = seedFromEnv();
console.log(`client ec-one-write seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const UNIT = 64 * 1024;
const EC22: Layout = { pattern: 'ec', stripeSize: UNIT, k: 2, m: 2, failureDomain: 'host' };

/** Per 64 KiB unit of `got`: which of the writes it equals ('w1', 'w2'), or 'neither'. */
function unitsOf(got: Buffer, writes: Record<string, Buffer>): string[] {
  const out: string[] = [];
  for (let at = 0; at < got.length; at += UNIT) {
    const unit = got.subarray(at, at + UNIT);
    const name = Object.entries(writes).find(([, w]) => w.subarray(at, at + UNIT).equals(unit))?.[0];
    out.push(name ?? 'neither');
  }
  return out;
}

/** Writes `data` over the file from 0 (the open does not truncate it: a failed write leaves the size). */
describe('an ec rebuild', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startCluster({ extraEnv: { STRIPEFS_MDS_OUT_GRACE_MS: '600000' } });
    client = await connectReader(cluster.mdsAddress, SEED, { retriesMax: 2 });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('decodes chunks of one write, and fails with a code where no k of one write are left', async () => {
    const w1 = seededBytes(2 * UNIT, SEED + 1);
    const w2 = seededBytes(2 * UNIT, SEED + 2);
    await client.writeFile('/e', w1, { layout: EC22 });
    const [d0, , p0, p1] = (await client.getLayout('/e')).objects.map((o) => o.osts[0] as number) as [
      number,
      number,
      number,
      number,
    ];

    // w2 reaches data chunk 1 and parity chunk 1 only, and fails.
    for (const ost of [d0, p0]) await setOstFaults(cluster, ost, { writeFailRate: 1 });
    const failed = await overwrite(client, '/e', w2).then(
      () => 'acknowledged',
      (err: unknown) => (err instanceof StripeError ? err.code : String(err)),
    );
    expect(failed, 'w2 with two chunks refusing it').not.toBe('acknowledged');
    for (const ost of [d0, p0]) await setOstFaults(cluster, ost, null);

    // Data chunk 0 unreadable: rebuilt from data chunk 1 and parity chunk 1, both w2.
    await setOstFaults(cluster, d0, { readFailRate: 1 });
    const rebuilt = await client.readFile('/e');
    expect(unitsOf(rebuilt, { w1, w2 })).toEqual(['w2', 'w2']);

    // Parity chunk 1 unreadable too: data chunk 1 (w2) and parity chunk 0 (w1) are all that is left.
    await setOstFaults(cluster, p1, { readFailRate: 1 });
    const left = await client.readFile('/e').then(
      (data) => unitsOf(data, { w1, w2 }).join(','),
      (err: unknown) => (err instanceof StripeError ? err.code : String(err)),
    );
    expect(left).toBe('IO_DEGRADED');
    for (const ost of [d0, p1]) await setOstFaults(cluster, ost, null);

    // A whole stripe written again heals it: every chunk holds w3.
    const w3 = seededBytes(2 * UNIT, SEED + 3);
    await overwrite(client, '/e', w3);
    await setOstFaults(cluster, d0, { readFailRate: 1 });
    expect((await client.readFile('/e')).equals(w3)).toBe(true);
    await setOstFaults(cluster, d0, null);
  });
});
