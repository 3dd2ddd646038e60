// writeLent: a handle writes the caller's buffer without copying it (raid0,
// replicated; ec copies, since parity is encoded beside the data), holds it
// until `released` settles, and a per-handle writeBehindBytesMax bounds what
// it has in flight. Checked byte for byte through a real cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';

const SEED = seedFromEnv();
console.log(`lent writes seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const LAYOUTS: Record<string, Layout> = {
  raid0: { pattern: 'raid0', stripeSize: S, stripeCount: 3 },
  rep2: { pattern: 'replicated', stripeSize: S, stripeCount: 2, replicas: 2, failureDomain: 'host' },
  ec42: { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' },
};

describe('lent writes on a real cluster', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startCluster();
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  for (const [name, layout] of Object.entries(LAYOUTS)) {
    it(`${name}: whole units lent one after another, then a short tail, read back identical`, async () => {
      const unit = layout.pattern === 'ec' ? 4 * S : S;
      const data = seededBytes(20 * unit + 1234, SEED);
      const handle = await client.open(`/lent-${name}`, 'w', { layout, writeBehindBytesMax: 2 * 6 * S });
      const releases: Promise<void>[] = [];
      for (let at = 0; at < data.length; at += unit) {
        // A copy the handle may keep until released: then it is overwritten, which must not reach the file.
        const lent = Buffer.from(data.subarray(at, Math.min(data.length, at + unit)));
        const { released } = await handle.writeLent(lent, at);
        releases.push(released.then(() => void lent.fill(0xee)));
      }
      await handle.close();
      await Promise.all(releases);
      expect(handle.size).toBe(data.length);
      expect((await client.readFile(`/lent-${name}`)).equals(data)).toBe(true);
    });
  }

  it('a lent write after buffered writes sends those first, and overwrites in place (raid0)', async () => {
    const layout = LAYOUTS.raid0 as Layout;
    const data = seededBytes(5 * S, SEED + 1);
    const handle = await client.open('/lent-mixed', 'w', { layout });
    await handle.write(data, 0, 100, 0);
    await handle.write(data, 100, S - 100, 100);
    const { released } = await handle.writeLent(data.subarray(S), S);
    const patch = Buffer.from('patched');
    await (await handle.writeLent(patch, 10)).released;
    await handle.close();
    await released;
    const expected = Buffer.from(data);
    patch.copy(expected, 10);
    expect((await client.readFile('/lent-mixed')).equals(expected)).toBe(true);
  });

  it('refuses a write-behind bound below one byte with REQ_INVALID', async () => {
    await expect(client.open('/lent-bad', 'w', { writeBehindBytesMax: 0 })).rejects.toBeInstanceOf(
      StripeError,
    );
    await expect(client.open('/lent-bad', 'w', { writeBehindBytesMax: 0 })).rejects.toMatchObject({
      code: 'REQ_INVALID',
    });
  });
});
