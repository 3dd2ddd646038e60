// `npm run test:prometheus` (scripts/test-prometheus.sh): monitoring/ with the real tools, Debian's
// prometheus and promtool. promtool checks both scrape configurations and lints the MDS's and an
// OSS's /metrics; a real Prometheus scrapes a real cluster (1 MDS, 4 OSSs) with
// monitoring/prometheus-local.yml's jobs and labels pointed at the test's ports, every query of
// monitoring/grafana-stripefs.json answers with data, the OST and job counters say what the cluster and a
// tagged workload did, and a killed host shows as one OST fewer up.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type Layout, StripeClient } from '../../client/index.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';

const MiB = 1 << 20;
const JOB_BYTES = 4 * MiB;
const RAID0: Layout = { pattern: 'raid0', stripeSize: 64 * 1024, stripeCount: 4 };
const WAIT = { timeoutMs: 120_000 };

interface ScrapeConfig {
  job_name: string;
  static_configs: { targets: string[]; labels?: Record<string, string> }[];
}
interface QueryAnswer {
  status: string;
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

const promtool = (args: string[], input?: string): string =>
  execFileSync('promtool', args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

describe('Prometheus and Grafana against a real cluster', () => {
  let cluster: Cluster;
  let prometheus: ChildProcess | undefined;
  let promUrl = '';
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-prometheus-'));

  const query = async (expr: string): Promise<QueryAnswer['data']['result']> => {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const answer = (await res.json()) as QueryAnswer;
    if (answer.status !== 'success') throw new Error(`${expr}: ${JSON.stringify(answer)}`);
    return answer.data.result;
  };
  const scalar = async (expr: string): Promise<number> => Number((await query(expr))[0]?.value[1]);

  beforeAll(async () => {
    const oss = rackLayout(4, 2, 1).map((spec) => ({
      ...spec,
      env: { STRIPEFS_OSS_OST_CAPACITY_BYTES: String(4096 * MiB) },
    }));
    // A Prometheus holds no keyring: the MDS and OSSs serve /metrics without one (auth.metricsOpen).
    cluster = await startCluster({ oss, pgCount: 16, extraEnv: { STRIPEFS_AUTH_METRICS_OPEN: 'true' } });
    // prometheus-local.yml's jobs and labels, pointed at this cluster's ports, scraped every second.
    const local = parse(readFileSync('monitoring/prometheus-local.yml', 'utf8')) as {
      global: Record<string, string>;
      scrape_configs: ScrapeConfig[];
    };
    const jobs = Object.fromEntries(local.scrape_configs.map((c) => [c.job_name, c]));
    const hostOf = (target: string) => new URL(target).host;
    jobs['stripefs-mds']!.static_configs = [{ targets: [hostOf(cluster.mdsAdminUrl)] }];
    jobs['stripefs-oss']!.static_configs = cluster.specs.map((s) => ({
      targets: [hostOf(cluster.adminUrlOf(s.id))],
      labels: { host: s.host, rack: s.rack },
    }));
    local.global = { scrape_interval: '1s', evaluation_interval: '1s' };
    const configFile = join(dir, 'prometheus.yml');
    writeFileSync(configFile, stringify(local));
    promtool(['check', 'config', configFile]);
    const port = await freePortRange(1);
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prometheus.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    await eventually(
      async () => {
        // Refused while Prometheus starts: asked again until the deadline, which shows its log.
        const res = await fetch(`${promUrl}/api/v1/targets`).catch(() => undefined);
        if (!res) throw new Error(`prometheus not answering yet: ${log}`);
        const targets = (await res.json()) as {
          data: { activeTargets: { health: string; scrapeUrl: string }[] };
        };
        const up = targets.data.activeTargets.filter((t) => t.health === 'up');
        if (up.length !== cluster.specs.length + 1)
          throw new Error(JSON.stringify(targets.data.activeTargets));
        return true;
      },
      { ...WAIT, what: 'Prometheus scraping the MDS and every OSS' },
    );
  });
  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('promtool accepts both scrape configurations and the metrics the servers export', async () => {
    for (const file of ['monitoring/prometheus-local.yml', 'monitoring/prometheus-compose.yml'])
      expect(promtool(['check', 'config', file])).toContain('SUCCESS');
    for (const url of [cluster.mdsAdminUrl, cluster.adminUrlOf(cluster.specs[0]!.id)]) {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toContain('stripefs_');
      const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      // prom-client's own Node.js gauges end in _total (stripefs_nodejs_active_handles_total ...):
      // promtool's one complaint that is not about a stripefs metric.
      const problems = `${lint.stdout}${lint.stderr}`
        .split('\n')
        .filter((line) => line.trim() !== '' && !/^stripefs_nodejs_active_\w+_total non-counter/.test(line));
      expect(problems, url).toEqual([]);
    }
  });

  it("answers every Grafana panel's query, and the counters say what the workload did", async () => {
    const client = await StripeClient.connect({ mds: cluster.mdsAddress, jobId: 'train-1' });
    try {
      const data = seededBytes(JOB_BYTES, 3);
      await client.writeFile('/prom.bin', data, { layout: RAID0 });
      expect((await client.readFile('/prom.bin')).equals(data)).toBe(true);
      // One refusal, for the errors panel (an MDS error is a series only once one happened).
      expect(await codeOf(client.stat('/no-such-file'))).toBe('NS_NOT_FOUND');
    } finally {
      await client.close();
    }
    await eventually(
      async () => (await scalar('stripefs_job_write_bytes_total{job_id="train-1"}')) === JOB_BYTES,
      { ...WAIT, what: "train-1's written bytes in Prometheus" },
    );
    // Prometheus scrapes each OSS on its own clock: the sum is whole once every OSS's scrape after
    // the write is in, which may be a scrape after the one that completed the job's bytes.
    let written = -1;
    await eventually(
      async () => {
        written = await scalar('sum(stripefs_oss_bytes_total{direction="write"})');
        return written >= JOB_BYTES;
      },
      { ...WAIT, what: 'every OSS scraped with its written bytes' },
    );
    expect(written).toBe(JOB_BYTES);
    expect(await scalar('sum(stripefs_ost_up)')).toBe(cluster.ostCount());

    const dash = JSON.parse(readFileSync('monitoring/grafana-stripefs.json', 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    for (const panel of dash.panels)
      for (const { expr } of panel.targets)
        await eventually(async () => (await query(expr)).length > 0, {
          ...WAIT,
          what: `data for "${panel.title}": ${expr}`,
        });
  });

  it('a killed host is one OST fewer up', async () => {
    const victim = cluster.specs[0]!;
    await cluster.killOss(victim.id);
    await eventually(async () => (await scalar('sum(stripefs_ost_up)')) === cluster.ostCount() - 1, {
      ...WAIT,
      what: 'stripefs_ost_up to count the killed OST down',
    });
    const down = await query('stripefs_ost_up == 0');
    expect(down.map((r) => r.metric.host)).toEqual([victim.host]);
    expect(await scalar(`up{job="stripefs-oss", host="${victim.host}"}`)).toBe(0);
  });
});
