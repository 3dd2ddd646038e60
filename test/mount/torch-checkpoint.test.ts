// PyTorch's distributed checkpoint FileSystemWriter (Debian's python3-torch)
// saving to and loading from a stripefs mount. It writes its data files
// straight into the checkpoint directory, fsyncs them, then writes
// `.metadata.tmp`, fsyncs it and renames it to `.metadata`, its success
// marker: on stripefs that rename is one MDS transaction, so `.metadata` is
// there whole or not at all. A saver SIGKILLed once its data files show up
// leaves data files but no `.metadata`: the load fails, and the previous
// checkpoint still loads identical. Run by `npm run test:mount`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { MOUNT_HOOK_TIMEOUT_MS, type Mounted, mountCluster, mountSupport, sh } from './helpers.js';

const SEED = seedFromEnv() % 1_000_000;
const unsupported = mountSupport();
if (unsupported) console.warn(`SKIPPED test/mount/torch-checkpoint.test.ts: ${unsupported}`);
else console.log(`mount torch checkpoint seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

const SAVER = `
import dataclasses, json, os, sys
# Debian's torch 1.13 predates Python 3.11's refusal of unhashable dataclass defaults, which
# torch.distributed._shard's metadata uses: such dataclasses get identity hashes.
_dataclass = dataclasses.dataclass
def _hashable(cls):
    if cls.__hash__ is None:
        cls.__hash__ = object.__hash__
    return cls
def dataclass(*args, **kwargs):
    if args and isinstance(args[0], type):
        return _hashable(_dataclass(args[0]))
    wrap = _dataclass(*args, **kwargs)
    return lambda cls: _hashable(wrap(cls))
dataclasses.dataclass = dataclass
import torch
import torch.distributed._shard.checkpoint as dcp

mode, path, seed, mib = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def state(seed):
    g = torch.Generator().manual_seed(seed)
    n = mib * 1024 * 1024 // 4 // 8
    return {**{'layer%d.weight' % i: torch.randn(n, generator=g) for i in range(8)}, 'step': torch.tensor([seed])}
if mode == 'save':
    os.makedirs(path, exist_ok=True)
    dcp.save_state_dict(state(seed), dcp.FileSystemWriter(path), no_dist=True)
    print(json.dumps({'saved': sorted(os.listdir(path))}), flush=True)
else:
    want = state(seed)
    got = {k: torch.zeros_like(v) for k, v in want.items()}
    try:
        dcp.load_state_dict(got, dcp.FileSystemReader(path), no_dist=True)
    except BaseException as err:
        # torch wraps the reader's FileNotFoundError in a CheckpointException (a BaseException).
        text = str(err)
        if 'No such file or directory' not in text:
            raise
        print(json.dumps({'missing': '.metadata' if '/.metadata' in text else text}), flush=True)
        sys.exit(0)
    print(json.dumps({'equal': all(torch.equal(got[k], want[k]) for k in want)}), flush=True)
`;

describe.skipIf(unsupported !== undefined)('PyTorch FileSystemWriter on a stripefs mount', () => {
  let cluster: Cluster;
  let mounted: Mounted;
  let work: string;
  const python = (args: string) => sh(`/usr/bin/python3 ${work}/saver.py ${args}`, { timeoutMs: 900_000 });

  beforeAll(async () => {
    cluster = await startCluster();
    mounted = await mountCluster(cluster.mdsAddress);
    work = mkdtempSync(join(tmpdir(), 'stripefs-torch-ckpt-'));
    writeFileSync(join(work, 'saver.py'), SAVER);
  }, MOUNT_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await mounted?.stop();
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, MOUNT_HOOK_TIMEOUT_MS);

  it('saves with .metadata renamed into place last, and loads back identical', async () => {
    const dir = `${mounted.mountpoint}/ckpt/step-1`;
    const saved = JSON.parse(await python(`save ${dir} ${SEED} 16`)) as { saved: string[] };
    expect(saved.saved).toContain('.metadata');
    expect(saved.saved).not.toContain('.metadata.tmp');
    expect(saved.saved.filter((n) => n.endsWith('.distcp')).length).toBeGreaterThan(0);
    expect(JSON.parse(await python(`load ${dir} ${SEED} 16`))).toEqual({ equal: true });
  });

  it('a saver SIGKILLed after its data files appear leaves no .metadata; the previous checkpoint still loads', async () => {
    const previous = `${mounted.mountpoint}/ckpt/step-1`;
    const dir = `${mounted.mountpoint}/ckpt/step-2`;
    const child = spawn('/usr/bin/python3', [join(work, 'saver.py'), 'save', dir, String(SEED + 1), '256'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    const deadline = Date.now() + 600_000;
    let killedWith: string[] | undefined;
    while (!killedWith) {
      const names = existsSync(dir) ? readdirSync(dir) : [];
      if (names.some((n) => n.endsWith('.distcp'))) {
        child.kill('SIGKILL');
        killedWith = names;
      } else if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`the saver ended (${child.exitCode}) before any data file appeared`);
      else await new Promise((r) => setTimeout(r, 20));
    }
    const [code, signal] = await exited;
    expect(signal, `exit ${code}`).toBe('SIGKILL');
    expect(killedWith).not.toContain('.metadata');
    const after = readdirSync(dir);
    expect(after.some((n) => n.endsWith('.distcp'))).toBe(true);
    expect(after).not.toContain('.metadata');
    expect(JSON.parse(await python(`load ${dir} ${SEED + 1} 256`))).toEqual({ missing: '.metadata' });
    expect(JSON.parse(await python(`load ${previous} ${SEED} 16`))).toEqual({ equal: true });
  });
});
