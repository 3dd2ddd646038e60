// No Docker engine runs here, so docker-compose.yml and the Dockerfile are
// kept honest by reading them: every service's environment must pass the
// configuration schema, the topology must equal the local launcher's default,
// and the Dockerfile's build steps must work in a clean copy of the repository.
import { execFileSync, execSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_PLAN_OPTIONS, planCluster } from '../../cli/cluster/plan.js';
import { knownEnvNames, loadConfig } from '../../common/config.js';

interface Service {
  image?: string;
  build?: string;
  command: string[];
  environment: Record<string, string>;
  volumes: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const plan = planCluster({ ...DEFAULT_PLAN_OPTIONS, dataDir: '/data', bindHost: '0.0.0.0' });

describe('docker-compose.yml', () => {
  it('runs one MDS and the launcher default OSSs, nothing else', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['mds', ...plan.oss.map((p) => p.name)].sort());
    expect(compose.services.mds?.command).toEqual([plan.mds.script]);
  });

  it('gives every service an environment the configuration schema accepts', () => {
    const known = knownEnvNames();
    for (const [name, service] of Object.entries(compose.services)) {
      for (const key of Object.keys(service.environment))
        expect(known.has(key), `${name}: ${key}`).toBe(true);
      expect(() => loadConfig({ env: service.environment }), name).not.toThrow();
    }
  });

  it('places each OSS in the same rack and host, with the same OST count, as `stripefs cluster up`', () => {
    for (const planned of plan.oss) {
      const service = compose.services[planned.name];
      expect(service, planned.name).toBeDefined();
      const config = loadConfig({ env: service!.environment });
      expect(config['oss.host']).toBe(planned.host);
      expect(config['oss.rack']).toBe(planned.rack);
      expect(config['oss.osts']).toBe(DEFAULT_PLAN_OPTIONS.ostsPerHost);
      expect(config['oss.id']).toBe(planned.name);
      expect(config['mds.address']).toBe(`mds:${plan.mds.grpcPort}`);
      expect(config['oss.advertiseHost']).toBe(planned.name);
      expect(service!.command).toEqual([planned.script]);
      expect(service!.depends_on?.mds?.condition).toBe('service_healthy');
    }
  });

  it('keeps each OSS on its own named volume and publishes the MDS admin port', () => {
    const volumeNames = new Set<string>();
    for (const [name, service] of Object.entries(compose.services)) {
      const config = loadConfig({ env: service.environment });
      const dataDir = name === 'mds' ? config['mds.dataDir'] : config['oss.dataDir'];
      expect(service.volumes).toHaveLength(1);
      const [volume, mountPoint] = (service.volumes[0] as string).split(':');
      expect(mountPoint).toBe(dataDir);
      expect(Object.hasOwn(compose.volumes, volume as string)).toBe(true);
      volumeNames.add(volume as string);
      const adminPort = name === 'mds' ? config['mds.adminPort'] : config['oss.adminPort'];
      expect(service.healthcheck?.test.join(' ')).toContain(`127.0.0.1:${adminPort}/healthz`);
    }
    expect(volumeNames.size).toBe(Object.keys(compose.services).length);
    const mdsConfig = loadConfig({ env: compose.services.mds!.environment });
    expect(compose.services.mds?.ports).toContain(
      `${mdsConfig['mds.adminPort']}:${mdsConfig['mds.adminPort']}`,
    );
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const steps = dockerfile.split('\n').filter((line) => /^[A-Z]+ /.test(line));

  it('builds from a clean checkout with npm ci and the build script', () => {
    expect(steps[0]).toMatch(/^FROM node:20/);
    const runs = steps.filter((s) => s.startsWith('RUN ')).map((s) => s.slice(4));
    expect(runs).toEqual(['npm ci --no-audit --no-fund', 'npm run build']);
    expect(steps).toContain('COPY package.json package-lock.json ./');
    expect(steps.at(-1)).toBe('CMD ["dist/mds/main.js"]');
  });

  it('its RUN steps succeed in a temporary copy of the tracked files', { timeout: 240_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'stripefs-docker-'));
    try {
      const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])
        .toString()
        .split('\0')
        .filter((file) => file !== '' && existsSync(file));
      for (const file of tracked) {
        mkdirSync(join(dir, dirname(file)), { recursive: true });
        cpSync(file, join(dir, file));
      }
      for (const step of steps.filter((s) => s.startsWith('RUN '))) {
        execSync(
          `${step.slice(4)} --prefer-offline`.replace('npm run build --prefer-offline', 'npm run build'),
          {
            cwd: dir,
            stdio: 'pipe',
          },
        );
      }
      expect(existsSync(join(dir, 'dist', 'mds', 'main.js'))).toBe(true);
      expect(existsSync(join(dir, 'dist', 'oss', 'main.js'))).toBe(true);
      expect(existsSync(join(dir, 'dist', 'cli', 'main.js'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
