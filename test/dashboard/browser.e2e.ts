// `npm run test:dashboard` (scripts/test-dashboard.sh): the dashboard in a real browser, Debian's
// chromium driven by playwright-core, against a real cluster (1 MDS, 4 OSSs in 2 racks). It
// checks the page's tree, states and sizes against `stripefs df --json`, its health against
// `health --json`, the jobs table against the bytes two tagged clients wrote and read, the scrub
// panel against `stripefs scrub --json`, the clients table (one still connected, one gone), that
// the page asks nothing of any other origin, then kills a host and sees it turn red and recovery
// progress appear. Screenshots go to docs/images (STRIPEFS_SCREENSHOT_DIR), which the README shows.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { runCli } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';

const MiB = 1 << 20;
const CHROMIUM = process.env.STRIPEFS_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = process.env.STRIPEFS_SCREENSHOT_DIR ?? 'docs/images';
const QUOTA_BYTES = 4096 * MiB;
/** One copy of each byte: the jobs table shows the file's bytes exactly. */
const RAID0: Layout = { pattern: 'raid0', stripeSize: 64 * 1024, stripeCount: 4 };
/** Two copies on two hosts: a killed host leaves data to copy again (recovery to watch). */
const REP2: Layout = {
  pattern: 'replicated',
  stripeSize: 256 * 1024,
  stripeCount: 4,
  replicas: 2,
  failureDomain: 'host',
};
const JOB_BYTES = 4 * MiB;
const RECOVERY_BYTES = 32 * MiB;
/** Slow enough that recovery's progress stays on screen for a few samples. */
const RECOVERY_BYTES_PER_SEC = 2 * MiB;
/** Only bounds a hang (the MDS marks an OST down within 1 s of silence here). */
const WAIT_MS = 120_000;
/** --bad in mds/dashboard/public/style.css. */
const RED = 'rgb(211, 58, 44)';

/** The page's window, in the parts a check runs there (this project compiles without the DOM's types). */
interface InPage {
  document: { querySelector(selector: string): unknown };
  getComputedStyle(el: unknown): { borderTopColor: string; borderLeftColor: string };
}

interface DfRow {
  id: number;
  host: string;
  rack: string;
  state: string;
  totalBytes: number;
}

describe('the dashboard in chromium', () => {
  let cluster: Cluster;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const oss = rackLayout(4, 2, 1).map((spec) => ({
      ...spec,
      env: { STRIPEFS_OSS_OST_CAPACITY_BYTES: String(QUOTA_BYTES) },
    }));
    cluster = await startCluster({
      oss,
      pgCount: 16,
      extraEnv: {
        STRIPEFS_MDS_OUT_GRACE_MS: '2000',
        STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: String(RECOVERY_BYTES_PER_SEC),
        STRIPEFS_MDS_DASHBOARD_SAMPLE_MS: '500',
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const origin = new URL(cluster.mdsAdminUrl).origin;
    page.on('request', (req) => {
      if (!req.url().startsWith(origin) && !req.url().startsWith('data:')) foreign.push(req.url());
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
  });

  const cli = async (...args: string[]) => {
    const res = await runCli([
      ...args,
      '--json',
      '--mds',
      cluster.mdsAddress,
      '--admin',
      cluster.mdsAdminUrl,
    ]);
    expect(res.code, res.stderr).toBe(0);
    return JSON.parse(res.stdout) as unknown;
  };

  it('shows the tree, health and jobs as the CLI and the workload say', async () => {
    const writer = await StripeClient.connect({ mds: cluster.mdsAddress, jobId: 'train-1' });
    const reader = await StripeClient.connect({
      mds: cluster.mdsAddress,
      jobId: 'eval-2',
      limits: { cacheBytesMax: 0, readaheadTotalBytesMax: 0 },
    });
    try {
      const data = seededBytes(JOB_BYTES, 7);
      await writer.writeFile('/job.bin', data, { layout: RAID0 });
      expect((await reader.readFile('/job.bin')).equals(data)).toBe(true);
      await writer.writeFile('/copies.bin', seededBytes(RECOVERY_BYTES, 8), { layout: REP2 });
    } finally {
      await writer.close();
    }
    try {
      await checkPage(reader.tag.session, writer.tag.session);
    } finally {
      await reader.close();
    }
  });

  /** The page against the CLI, the workload, a scrub and the clients (`connected` still is). */
  async function checkPage(connected: string, gone: string): Promise<void> {
    const scrub = (await cli('scrub')) as { id: number; state: string; errorsFound: number };
    expect(scrub).toMatchObject({ state: 'done', errorsFound: 0 });
    // Without a token the page says how to sign in; with the one `stripefs dashboard` prints it is live.
    await page.goto(`${cluster.mdsAdminUrl}/dashboard/`);
    await page.waitForSelector('[data-testid=connection][data-state=refused]', { timeout: WAIT_MS });
    const { url } = (await cli('dashboard')) as { url: string };
    await page.goto('about:blank'); // a new load, not a change of the fragment alone
    await page.goto(url);
    await page.waitForSelector('[data-testid=connection][data-state=live]', { timeout: WAIT_MS });
    expect(page.url()).not.toContain('token=');
    const df = (await cli('df')) as DfRow[];
    for (const row of df) {
      const ost = page.locator(
        `.rack[data-rack="${row.rack}"] .host[data-host="${row.host}"] .ost[data-ost-id="${row.id}"]`,
      );
      await expect
        .poll(() => ost.getAttribute('data-state'), { timeout: WAIT_MS })
        .toBe(row.state === 'up/in' ? 'up' : 'down');
      expect(Number(await ost.getAttribute('data-total-bytes'))).toBe(row.totalBytes);
    }
    expect(await page.locator('.ost').count()).toBe(df.length);

    const health = (await cli('health')) as { ok: boolean };
    await expect
      .poll(() => page.locator('[data-testid=health-status]').textContent(), { timeout: WAIT_MS })
      .toBe(health.ok ? 'HEALTH_OK' : 'HEALTH_WARN');

    // The jobs' bytes arrive with the OSSs' next heartbeats and the MDS's next sample.
    const row = (job: string) => page.locator(`[data-testid=jobs] tr[data-job-id="${job}"]`);
    await expect
      .poll(async () => Number(await row('eval-2').getAttribute('data-read-bytes', { timeout: WAIT_MS })), {
        timeout: WAIT_MS,
      })
      .toBe(JOB_BYTES);
    await expect
      .poll(async () => Number(await row('train-1').getAttribute('data-write-bytes')), { timeout: WAIT_MS })
      .toBe(JOB_BYTES + 2 * RECOVERY_BYTES);
    expect(Number(await row('train-1').getAttribute('data-read-bytes'))).toBe(0);

    const scrubLast = page.locator('[data-testid=scrub-last]');
    await expect
      .poll(() => scrubLast.textContent({ timeout: WAIT_MS }), { timeout: WAIT_MS })
      .toContain(`last #${scrub.id}`);
    expect(await scrubLast.textContent()).toContain('0 errors found');
    const client = (session: string) => page.locator(`[data-testid=clients] tr[data-session="${session}"]`);
    await expect
      .poll(() => client(connected).getAttribute('data-connected'), { timeout: WAIT_MS })
      .toBe('true');
    await expect.poll(() => client(gone).getAttribute('data-connected'), { timeout: WAIT_MS }).toBe('false');
    await page.screenshot({ path: join(SHOTS, 'dashboard.png'), fullPage: true });
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  }

  it('turns a killed host red and shows recovery progress', async () => {
    const victim = cluster.specs[0];
    if (!victim) throw new Error('no OSS');
    await cluster.killOss(victim.id);
    await page.waitForSelector(`.host[data-host="${victim.host}"][data-state=down]`, { timeout: WAIT_MS });
    // Red: the stylesheet's --bad, on the host's border and its OSTs' left edge. Read in one
    // evaluation: every sample redraws the tree, so two steps could see different elements.
    const colours = await page.evaluate((name) => {
      const w = globalThis as unknown as InPage;
      const host = w.document.querySelector(`.host[data-host="${name}"]`);
      const ost = w.document.querySelector(`.host[data-host="${name}"] .ost`);
      return [w.getComputedStyle(host).borderTopColor, w.getComputedStyle(ost).borderLeftColor];
    }, victim.host);
    expect(colours).toEqual([RED, RED]);
    expect(await page.locator('[data-testid=health-status]').textContent()).toBe('HEALTH_WARN');
    expect(await page.locator('[data-testid=problems]').textContent()).toContain(`(${victim.host})`);
    await page.screenshot({ path: join(SHOTS, 'dashboard-host-down.png'), fullPage: true });

    // Out after 2 s down: its PGs' copies are made again elsewhere, throttled so the bar shows.
    const progress = page.locator('[data-testid=recovery-progress]');
    await progress.waitFor({ timeout: WAIT_MS });
    await expect
      .poll(async () => Number(await progress.getAttribute('data-copied-bytes', { timeout: WAIT_MS })), {
        timeout: WAIT_MS,
      })
      .toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'dashboard-recovery.png'), fullPage: true });
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
