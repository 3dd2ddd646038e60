// The small-operation profile on a real cluster with a few files: every row is
// there, and the requests a 64 KiB writeFile and readFile cost are counted by
// the servers themselves (counts, not times).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BenchCluster, startBenchCluster } from '../../bench/cluster.js';
import { profileLayout, runSmallOpsBench, SMALLOPS_LAYOUTS } from '../../bench/smallops.js';

describe('small-operation profile', () => {
  let cluster: BenchCluster;
  beforeAll(async () => {
    cluster = await startBenchCluster();
  }, 300_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('reports files/s, CPU per file of each process and requests per file for every layout', async () => {
    const results = await runSmallOpsBench({ quick: true, files: 40, cluster: async () => cluster });
    const phases = ['write-64k', 'read-64k'];
    const figures = ['', '.cpu-client', '.cpu-mds', '.cpu-oss', '.mds-calls', '.oss-requests'];
    expect(results.map((r) => r.id)).toEqual(
      ['rep3', 'ec21', 'dom'].flatMap((l) =>
        phases.flatMap((p) => figures.map((f) => `smallops.${l}.${p}${f}`)),
      ),
    );
    for (const r of results) expect(Number.isFinite(r.value) && r.value >= 0, r.id).toBe(true);
  });

  it('dom: a file is one create, no OSS request, and its read one open, no OSS request', async () => {
    const dom = SMALLOPS_LAYOUTS.find((l) => l.name === 'dom');
    const { write, read } = await profileLayout(cluster, 'dom-counts', dom!.layout, 32);
    expect(write.ossOpsPerFile).toEqual({});
    expect(Object.keys(write.mdsCallsPerFile).filter((k) => !k.startsWith('create'))).toEqual([]);
    expect(read.ossOpsPerFile).toEqual({});
    expect(Object.keys(read.mdsCallsPerFile).filter((k) => !k.startsWith('open'))).toEqual([]);
  });

  for (const { name, layout } of SMALLOPS_LAYOUTS.filter((l) => l.name !== 'dom')) {
    it(`${name}: writes each copy once, made durable by the write itself (no Flush), and reads one copy`, async () => {
      const { write, read } = await profileLayout(cluster, `${name}-counts`, layout, 32);
      // Three copies (ec 2+1: three chunks), each written once with sync: no Flush request at all.
      expect(write.ossOpsPerFile).toEqual({ write: 3 });
      // One commit per file, alone or in a CommitMany with others': at most one call per file.
      const commits = (write.mdsCallsPerFile.commit ?? 0) + (write.mdsCallsPerFile.commitMany ?? 0);
      expect(commits).toBeGreaterThan(0);
      expect(commits).toBeLessThanOrEqual(1);
      // One copy (ec: the data chunk) read per file.
      expect(read.ossOpsPerFile).toEqual({ read: 1 });
    });
  }
});
