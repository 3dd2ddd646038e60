// fio through a stripefs mount: sequential and random writes and reads with
// verify=crc32c (fio writes a checksummed pattern, reads every block back and
// fails on any difference), on a raid0 file and on a replicated one. Run by
// `npm run test:mount`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { MOUNT_HOOK_TIMEOUT_MS, type Mounted, mountCluster, mountSupport, sh } from './helpers.js';

const unsupported = mountSupport();
if (unsupported) console.warn(`SKIPPED test/mount/fio.test.ts: ${unsupported}`);

interface FioJob {
  jobname: string;
  error: number;
  read: { io_bytes: number };
  write: { io_bytes: number };
}

const SIZE = '32m';
const SIZE_BYTES = 32 * 1024 * 1024;

describe.skipIf(unsupported !== undefined)('fio on a stripefs mount', () => {
  let cluster: Cluster;
  let mounted: Mounted;

  beforeAll(async () => {
    cluster = await startCluster();
    mounted = await mountCluster(cluster.mdsAddress);
    await sh(`mkdir ${mounted.mountpoint}/raid0 ${mounted.mountpoint}/rep3`);
    await sh(`setfattr -n user.stripefs.layout -v raid0:4:1M ${mounted.mountpoint}/raid0`);
    await sh(`setfattr -n user.stripefs.layout -v replicated:3:host:2:1M ${mounted.mountpoint}/rep3`);
  }, MOUNT_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await mounted?.stop();
    await cluster?.stop();
  }, MOUNT_HOOK_TIMEOUT_MS);

  async function fio(dir: string, args: string): Promise<FioJob[]> {
    const out = await sh(
      `fio --directory=${mounted.mountpoint}/${dir} --size=${SIZE} --ioengine=psync --verify=crc32c ` +
        `--verify_fatal=1 --do_verify=1 --verify_state_save=0 --output-format=json ${args}`,
      { timeoutMs: 600_000 },
    );
    return (JSON.parse(out.slice(out.indexOf('{'))) as { jobs: FioJob[] }).jobs;
  }

  for (const dir of ['raid0', 'rep3']) {
    it(`${dir}: sequential write then read, every block verified, again from a fresh open`, async () => {
      const seq = '--name=seq --rw=write --bs=1m --filename=seq.dat';
      const [job] = await fio(dir, seq);
      expect(job?.error).toBe(0);
      expect(job?.write.io_bytes).toBe(SIZE_BYTES);
      // A second fio process verifies the file again: a new open, so the bytes come from the OSSs.
      const [again] = await fio(dir, `${seq} --verify_only`);
      expect(again?.error).toBe(0);
      expect(again?.read.io_bytes).toBe(SIZE_BYTES);
    });

    it(`${dir}: random 4 KiB and 64 KiB writes, verified; random reads`, async () => {
      const small = '--name=rand4k --rw=randwrite --bs=4k --filename=rand4k.dat --size=8m';
      const [written] = await fio(dir, small);
      expect(written?.error).toBe(0);
      expect(written?.write.io_bytes).toBe(8 * 1024 * 1024);
      const [checked] = await fio(dir, `${small} --verify_only`);
      expect(checked?.error).toBe(0);
      expect(checked?.read.io_bytes).toBe(8 * 1024 * 1024);
      const big = '--name=rand64k --rw=randwrite --bs=64k --filename=rand64k.dat';
      expect((await fio(dir, big))[0]?.error).toBe(0);
      expect((await fio(dir, `${big} --verify_only`))[0]?.error).toBe(0);
      const [reads] = await fio(
        dir,
        '--name=randr --rw=randread --bs=16k --filename=rand64k.dat --verify=0 --do_verify=0',
      );
      expect(reads?.error).toBe(0);
      expect(reads?.read.io_bytes).toBe(SIZE_BYTES);
    });
  }
});
