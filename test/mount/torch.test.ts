// A PyTorch DataLoader (Debian's python3-torch) with several worker processes
// reading a dataset of small files through a stripefs mount for two epochs,
// every sample checked against its sha256. Run by `npm run test:mount`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { MOUNT_HOOK_TIMEOUT_MS, type Mounted, mountCluster, mountSupport, sh } from './helpers.js';

const SEED = seedFromEnv();
const unsupported = mountSupport();
if (unsupported) console.warn(`SKIPPED test/mount/torch.test.ts: ${unsupported}`);
else console.log(`mount torch seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

const SAMPLES = 600;
const WORKERS = 4;

const MAKE = `
import hashlib, json, os, random, sys
root, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
manifest = {}
for i in range(count):
    sub = os.path.join(root, 'class%d' % (i % 5))
    os.makedirs(sub, exist_ok=True)
    data = rng.randbytes(rng.choice([1000, 4096, 32768, 70000]))
    path = os.path.join(sub, 'sample%05d.bin' % i)
    with open(path, 'wb') as f:
        f.write(data)
    manifest[os.path.relpath(path, root)] = hashlib.sha256(data).hexdigest()
with open(os.path.join(root, 'manifest.json'), 'w') as f:
    json.dump(manifest, f)
`;

const TRAIN = `
import hashlib, json, os, sys
import torch
from torch.utils.data import DataLoader, Dataset
root, workers = sys.argv[1], int(sys.argv[2])
manifest = json.load(open(os.path.join(root, 'manifest.json')))
paths = sorted(manifest)

class Files(Dataset):
    def __len__(self):
        return len(paths)
    def __getitem__(self, i):
        with open(os.path.join(root, paths[i]), 'rb') as f:
            data = f.read()
        return i, hashlib.sha256(data).hexdigest(), len(data)

def collate(batch):
    return batch

loader = DataLoader(Files(), batch_size=16, shuffle=True, num_workers=workers, collate_fn=collate,
                    generator=torch.Generator().manual_seed(1), persistent_workers=False)
result = {'epochs': [], 'bad': []}
for epoch in range(2):
    seen = 0
    order = []
    for batch in loader:
        for i, digest, n in batch:
            seen += 1
            order.append(i)
            if digest != manifest[paths[i]]:
                result['bad'].append(paths[i])
    result['epochs'].append({'seen': seen, 'distinct': len(set(order))})
print(json.dumps(result))
`;

describe.skipIf(unsupported !== undefined)('PyTorch DataLoader on a stripefs mount', () => {
  let cluster: Cluster;
  let mounted: Mounted;
  let work: string;

  beforeAll(async () => {
    cluster = await startCluster();
    mounted = await mountCluster(cluster.mdsAddress);
    work = mkdtempSync(join(tmpdir(), 'stripefs-torch-'));
    writeFileSync(join(work, 'make.py'), MAKE);
    writeFileSync(join(work, 'train.py'), TRAIN);
  }, MOUNT_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await mounted?.stop();
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, MOUNT_HOOK_TIMEOUT_MS);

  it(`${WORKERS} workers read ${SAMPLES} small files for two epochs, every sample intact`, async () => {
    const dataset = `${mounted.mountpoint}/dataset`;
    await sh(`/usr/bin/python3 ${work}/make.py ${dataset} ${SEED} ${SAMPLES}`);
    const out = JSON.parse(
      await sh(`/usr/bin/python3 ${work}/train.py ${dataset} ${WORKERS}`, { timeoutMs: 900_000 }),
    ) as { epochs: { seen: number; distinct: number }[]; bad: string[] };
    expect(out.bad).toEqual([]);
    expect(out.epochs).toEqual([
      { seen: SAMPLES, distinct: SAMPLES },
      { seen: SAMPLES, distinct: SAMPLES },
    ]);
  });
});
