// Job statistics and the dashboard's API on a real cluster (1 MDS, 4 OSSs in
// 2 racks): a tagged workload's bytes arrive at the MDS per job exactly as
// written and read, the metrics endpoint and `stripefs top` show them, the
// dashboard's page and vendored assets are served from the MDS with a CSP,
// its snapshot agrees with `stripefs df --json` and `health --json`, and a
// killed host turns down in the event stream with the reason in its health.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import type { ClientView, JobView } from '../../mds/jobs/index.js';
import { adminFetch } from '../helpers/admin-http.js';
import { runCli } from '../helpers/cli.js';
import { fetchedBytes, seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';

const MiB = 1 << 20;
const SIZE = 4 * MiB;
/** One copy of each byte: the OSSs see the file's bytes exactly once each way. */
const RAID0: Layout = { pattern: 'raid0', stripeSize: 64 * 1024, stripeCount: 4 };
const WAIT = { timeoutMs: 60_000 };
const QUOTA_BYTES = 4096 * MiB;

interface JobsAnswer {
  tracked: number;
  jobs: JobView[];
}
interface ClientsAnswer {
  connected: number;
  clients: ClientView[];
}
interface OstLeaf {
  id: number;
  name: string;
  up: boolean;
  in: boolean;
  usedBytes: number;
  totalBytes: number;
}
interface Sample {
  epoch: number;
  health: { ok: boolean; problems: string[]; osts: { total: number; up: number } };
  racks: { name: string; hosts: { name: string; state: string; osts: OstLeaf[] }[] }[];
  jobs: { top: JobView[] };
}

/** Reads the dashboard's event stream until `done` accepts a sample (or the deadline passes). */
async function watchEvents(
  url: string,
  done: (sample: Sample) => boolean,
  timeoutMs: number,
): Promise<Sample> {
  const res = await adminFetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let last = 'no sample yet';
  try {
    for (;;) {
      const { value, done: ended } = await reader.read().catch((err: Error) => {
        throw new Error(`event stream: ${err.message}; the last sample: ${last}`);
      });
      if (ended) throw new Error(`event stream ended; the last sample: ${last}`);
      text += decoder.decode(value, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (!data) continue;
        const sample = (JSON.parse(data.slice(6)) as { snapshot: Sample }).snapshot;
        last = JSON.stringify(sample.health);
        if (done(sample)) return sample;
      }
    }
  } finally {
    // The stream was read as far as the test needed; an error while closing it changes no verdict.
    await reader.cancel().catch(() => undefined);
  }
}

describe('job statistics and the dashboard on a real cluster', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    // A quota per OST: totals that do not move with the shared disk's free space.
    const oss = rackLayout(4, 2, 1).map((spec) => ({
      ...spec,
      env: { STRIPEFS_OSS_OST_CAPACITY_BYTES: String(QUOTA_BYTES) },
    }));
    cluster = await startCluster({ oss, pgCount: 16 });
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  const connectFlags = () => ['--mds', cluster.mdsAddress, '--admin', cluster.mdsAdminUrl];

  it("counts a tagged workload's bytes per job at the OSSs and its calls at the MDS", async () => {
    const writer = await StripeClient.connect({ mds: cluster.mdsAddress, jobId: 'train-1' });
    const reader = await StripeClient.connect({
      mds: cluster.mdsAddress,
      jobId: 'eval-2',
      limits: { cacheBytesMax: 0, readaheadTotalBytesMax: 0 },
    });
    try {
      const data = seededBytes(SIZE, 30);
      await writer.mkdir('/jobs');
      await writer.writeFile('/jobs/a', data, { layout: RAID0 });
      expect((await reader.readFile('/jobs/a')).equals(data)).toBe(true);
      const fetched = fetchedBytes(reader.stats());
      const answer = await eventually(
        async () => {
          const a = await cluster.admin<JobsAnswer>('/api/jobs?sort=bytes');
          const train = a.jobs.find((j) => j.jobId === 'train-1');
          const evalJob = a.jobs.find((j) => j.jobId === 'eval-2');
          if (train?.data.writeBytes !== SIZE || evalJob?.data.readBytes !== fetched)
            throw new Error(`jobs so far: ${JSON.stringify(a.jobs.map((j) => [j.jobId, j.data]))}`);
          return { train, evalJob };
        },
        { ...WAIT, what: 'the OSS job reports of both jobs' },
      );
      expect(fetched).toBe(SIZE);
      expect(answer.train.data.readBytes).toBe(0);
      // A write request per object at least (its units back to back go as one write run).
      expect(answer.train.data.writeOps).toBeGreaterThanOrEqual(RAID0.stripeCount as number);
      expect(answer.train.mds.byOp).toHaveProperty('Mkdir');
      expect(answer.train.sessions).toBe(1);
      expect(answer.evalJob.data.writeBytes).toBe(0);
      expect(answer.evalJob.data.errors).toBe(0);

      const clients = await cluster.admin<ClientsAnswer>('/api/clients?sort=bytes');
      const mine = clients.clients.find((c) => c.session === writer.tag.session);
      expect(mine).toMatchObject({ jobIds: ['train-1'], connected: true });
      expect(mine?.name).toMatch(/:\d+$/);
      // Its host, not the port of whichever connection called last (gRPC and the framed path differ).
      expect(mine?.address).toBe('127.0.0.1');

      const metrics = await (await adminFetch(`${cluster.mdsAdminUrl}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(`^stripefs_job_write_bytes_total\\{job_id="train-1"[^}]*\\} ${SIZE}$`, 'm'),
      );
      expect(metrics).toMatch(
        new RegExp(`^stripefs_job_read_bytes_total\\{job_id="eval-2"[^}]*\\} ${SIZE}$`, 'm'),
      );

      const top = await runCli(['top', '--once', '--json', ...connectFlags()]);
      expect(top.code, top.stderr).toBe(0);
      const topJobs = (JSON.parse(top.stdout) as { jobs: JobsAnswer }).jobs.jobs.map((j) => j.jobId);
      expect(topJobs).toEqual(expect.arrayContaining(['train-1', 'eval-2']));
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('refuses a malformed job id from the option and from the environment', async () => {
    expect(await codeOf(StripeClient.connect({ mds: cluster.mdsAddress, jobId: 'two words' }))).toBe(
      'REQ_INVALID',
    );
    const bad = await runCli(['ls', '/', '--mds', cluster.mdsAddress], { env: { STRIPEFS_JOBID: 'a b' } });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/CONFIG_INVALID.*STRIPEFS_JOBID/s);
    const top = await runCli(['top', '--once', '--limit', '0', ...connectFlags()]);
    expect(top.code).not.toBe(0);
    expect(top.stderr).toContain('REQ_INVALID');
  });

  it('serves the page and its vendored assets from the MDS, with a CSP that allows no other origin', async () => {
    const page = await adminFetch(`${cluster.mdsAdminUrl}/dashboard/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of [
      'app.js',
      'charts.js',
      'style.css',
      'vendor/uPlot.iife.min.js',
      'vendor/uPlot.min.css',
    ]) {
      const res = await adminFetch(`${cluster.mdsAdminUrl}/dashboard/${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    const missing = await adminFetch(`${cluster.mdsAdminUrl}/dashboard/../../etc/passwd`);
    expect(missing.status).toBe(404);
  });

  it('agrees with df --json and health --json, and shows a killed host down with its reason', async () => {
    const flags = ['--json', ...connectFlags()];
    const df = JSON.parse((await runCli(['df', ...flags])).stdout) as {
      id: number;
      host: string;
      rack: string;
      state: string;
      totalBytes: number;
    }[];
    const health = JSON.parse((await runCli(['health', ...flags])).stdout) as { ok: boolean };
    const { snapshot } = await cluster.admin<{ snapshot: Sample }>('/api/dashboard');
    const leaves = snapshot.racks
      .flatMap((r) =>
        r.hosts.flatMap((h) => h.osts.map((o) => ({ id: o.id, host: h.name, rack: r.name, o }))),
      )
      .sort((a, b) => a.id - b.id);
    expect(leaves.map((l) => [l.id, l.host, l.rack])).toEqual(df.map((d) => [d.id, d.host, d.rack]));
    for (const [i, leaf] of leaves.entries()) {
      expect(`${leaf.o.up ? 'up' : 'down'}/${leaf.o.in ? 'in' : 'out'}`).toBe(df[i]?.state);
      expect(leaf.o.totalBytes).toBe(df[i]?.totalBytes);
      expect(leaf.o.totalBytes).toBe(QUOTA_BYTES);
    }
    expect(snapshot.health.ok).toBe(health.ok);

    const victim = cluster.specs[0];
    if (!victim) throw new Error('no OSS');
    const events = watchEvents(
      `${cluster.mdsAdminUrl}/api/dashboard/events`,
      (s) => s.racks.some((r) => r.hosts.some((h) => h.name === victim.host && h.state === 'down')),
      120_000,
    );
    await cluster.killOss(victim.id);
    const down = await events;
    expect(down.health.ok).toBe(false);
    expect(down.health.problems.join('\n')).toContain(`(${victim.host})`);
    expect(down.health.osts.up).toBe(down.health.osts.total - cluster.ostsOf(victim.id).length);
  });
});
