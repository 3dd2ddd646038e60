// monitoring/: the Prometheus scrape configurations name exactly the admin ports the launcher's
// default plan and docker-compose.yml give (MDS and every OSS, with host and rack labels), and
// the Grafana dashboard is well formed (one datasource input, unique ids, panels that fit the
// 24-column grid, a query in every target). `npm run test:prometheus` has Debian's promtool
// check the files and a real Prometheus run every panel's query against a real cluster.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_PLAN_OPTIONS, planCluster } from '../../cli/cluster/plan.js';
import { loadConfig } from '../../common/config.js';

interface ScrapeFile {
  scrape_configs: {
    job_name: string;
    static_configs: { targets: string[]; labels?: Record<string, string> }[];
  }[];
}
interface Grafana {
  __inputs: { name: string }[];
  panels: {
    id: number;
    datasource: { uid: string };
    gridPos: { x: number; y: number; w: number; h: number };
    targets: { expr: string; datasource: { uid: string } }[];
  }[];
}

/** job name -> [target, host label, rack label] in file order. */
function targetsOf(file: string): Record<string, [string, string?, string?][]> {
  const scrape = parse(readFileSync(file, 'utf8')) as ScrapeFile;
  return Object.fromEntries(
    scrape.scrape_configs.map((job) => [
      job.job_name,
      job.static_configs.flatMap((c) =>
        c.targets.map((t) => [t, c.labels?.host, c.labels?.rack] as [string, string?, string?]),
      ),
    ]),
  );
}

describe('monitoring configuration', () => {
  const plan = planCluster(DEFAULT_PLAN_OPTIONS);

  it('prometheus-local.yml scrapes the MDS and every OSS of `stripefs cluster up` at their admin ports', () => {
    expect(targetsOf('monitoring/prometheus-local.yml')).toEqual({
      'stripefs-mds': [[`127.0.0.1:${plan.mds.adminPort}`, undefined, undefined]],
      'stripefs-oss': plan.oss.map((o) => [`127.0.0.1:${o.adminPort}`, o.host, o.rack]),
    });
  });

  it("prometheus-compose.yml scrapes docker-compose.yml's services at their admin ports", () => {
    const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    const ossServices = Object.entries(compose.services).filter(([, s]) => s.environment?.STRIPEFS_OSS_ID);
    expect(ossServices).toHaveLength(plan.oss.length);
    expect(targetsOf('monitoring/prometheus-compose.yml')).toEqual({
      'stripefs-mds': [
        [`mds:${compose.services.mds?.environment?.STRIPEFS_MDS_ADMIN_PORT}`, undefined, undefined],
      ],
      'stripefs-oss': ossServices.map(([name, s]) => {
        const config = loadConfig({ env: s.environment ?? {} });
        return [`${name}:${config['oss.adminPort']}`, config['oss.host'], config['oss.rack']];
      }),
    });
  });

  it('grafana-stripefs.json: one datasource input, unique ids, panels on the grid, a query in each target', () => {
    const dash = JSON.parse(readFileSync('monitoring/grafana-stripefs.json', 'utf8')) as Grafana;
    expect(dash.__inputs.map((i) => i.name)).toEqual(['DS_PROMETHEUS']);
    expect(new Set(dash.panels.map((p) => p.id)).size).toBe(dash.panels.length);
    const cells = new Set<string>();
    for (const p of dash.panels) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's placeholder for the chosen datasource
      expect(p.datasource.uid).toBe('${DS_PROMETHEUS}');
      expect(p.gridPos.x + p.gridPos.w, `panel ${p.id}`).toBeLessThanOrEqual(24);
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++)
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`), `panel ${p.id} overlaps another at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
      expect(p.targets.length, `panel ${p.id}`).toBeGreaterThan(0);
      for (const t of p.targets) {
        expect(t.expr).toMatch(/stripefs_|up\{/);
        expect(t.datasource.uid).toBe(p.datasource.uid);
      }
    }
  });
});
