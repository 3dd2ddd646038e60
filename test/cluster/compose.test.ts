// docker-compose.yml, compose/rack3.yml and the Dockerfile, read without a container engine
// (`npm run test:compose` runs them for real): every service's environment passes the
// configuration schema, the topology, OST ids and ports equal the local launcher's plan, every
// port is published on the configurable address, the file keeps to what Compose v1 accepts, and
// the Dockerfile's build stage works in a clean copy and leaves no devDependency behind.
import { execFileSync, execSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { addToPlan, DEFAULT_PLAN_OPTIONS, type PlannedProcess, planCluster } from '../../cli/cluster/plan.js';
import { MDS_NODE_FLAGS, nodeFlagsOf } from '../../cli/process.js';
import { DEFAULT_KEYRING_PATH } from '../../common/auth/identity-source.js';
import { type Config, knownEnvNames, loadConfig } from '../../common/config.js';

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  profiles?: string[];
  environment: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

interface ComposeFile {
  name?: string;
  version?: string;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/** What compose does with `${VAR:-default}` and `$$` when nothing is set. */
function interpolate(text: string): string {
  return text
    .replace(/\$\{([A-Z_]+):-([^}]*)\}/g, (_, _name, fallback: string) => fallback)
    .replace(/\$\$/g, '$');
}

function readCompose(file: string): ComposeFile {
  return parse(interpolate(readFileSync(file, 'utf8')), { merge: true }) as ComposeFile;
}

const compose = readCompose('docker-compose.yml');
const rack3 = readCompose('compose/rack3.yml');
const plan = planCluster({ ...DEFAULT_PLAN_OPTIONS, dataDir: '/data', bindHost: '0.0.0.0' });
const grown = addToPlan(plan, [
  { host: 'host6', rack: 'rack3' },
  { host: 'host7', rack: 'rack3' },
]);
const configOf = (service: Service): Config => loadConfig({ env: service.environment });

/** An OSS service against the launcher's plan for the same host. */
function checkOss(name: string, service: Service | undefined, planned: PlannedProcess): void {
  expect(service, name).toBeDefined();
  const config = configOf(service!);
  const want = loadConfig({ env: planned.env });
  for (const key of ['oss.id', 'oss.host', 'oss.rack', 'oss.osts', 'oss.ostIds'] as const)
    expect(config[key], `${name} ${key}`).toBe(want[key]);
  expect([config['oss.grpcPort'], config['oss.bulkPort'], config['oss.adminPort']]).toEqual([
    planned.grpcPort,
    planned.bulkPort,
    planned.adminPort,
  ]);
  expect(config['mds.address']).toBe(`mds:${plan.mds.grpcPort}`);
  // The MDS and the other OSSs reach it by service name; clients on the host at 127.0.0.1.
  expect(config['oss.advertiseHost']).toBe(name);
  expect(config['oss.publicHost']).toBe('127.0.0.1');
  expect(config['oss.bindHost']).toBe('0.0.0.0');
  expect(service!.ports).toEqual([
    `127.0.0.1:${planned.grpcPort}-${planned.adminPort}:${planned.grpcPort}-${planned.adminPort}`,
  ]);
  expect(service!.command).toEqual([...nodeFlagsOf(planned.script), planned.script]);
  expect(service!.depends_on?.mds?.condition).toBe('service_healthy');
  expect(service!.healthcheck?.test.join(' ')).toContain('/dev/tcp/127.0.0.1/$STRIPEFS_OSS_ADMIN_PORT');
  expect(service!.volumes).toEqual([`${name}-data:${config['oss.dataDir']}`, `${KEYRING_DIR}:/keyring:ro`]);
  // It signs as the OSSs' service identity, whose keyring the MDS makes there.
  expect(config['auth.keyring']).toBe('/keyring/oss.keyring');
}

/** The host folder every service finds the keyrings in (the MDS writes them), as interpolated. */
const KEYRING_DIR = './data';

describe('docker-compose.yml', () => {
  it('keeps to what Compose v1 (1.29) accepts: no top-level name or version', () => {
    expect(compose.name).toBeUndefined();
    expect(compose.version).toBeUndefined();
    expect(rack3.name).toBeUndefined();
    // The project name comes from .env, so the network is stripefs_default in v1 and v2.
    expect(readFileSync('.env', 'utf8')).toMatch(/^COMPOSE_PROJECT_NAME=stripefs$/m);
  });

  it('runs one MDS, the launcher default OSSs and a CLI service started only by `run`', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['cli', 'mds', 's3', ...plan.oss.map((p) => p.name)].sort(),
    );
    // The S3 gateway: the CLI's s3 command, inside the network, published on 9000.
    expect(compose.services.s3?.command?.slice(0, 2)).toEqual(['dist/cli/main.js', 's3']);
    expect(configOf(compose.services.s3!)['mds.address']).toBe('mds:7070');
    expect(compose.services.mds?.command).toEqual([...nodeFlagsOf(plan.mds.script), plan.mds.script]);
    const cliService = compose.services.cli!;
    expect(cliService.profiles).toEqual(['cli']);
    expect(cliService.entrypoint).toEqual(['node', '/app/dist/cli/main.js']);
    expect(configOf(cliService)['mds.address']).toBe('mds:7070');
    expect(configOf(cliService)['client.network']).toBe('cluster');
  });

  it('gives every service an environment the configuration schema accepts', () => {
    const known = knownEnvNames();
    for (const [name, service] of Object.entries({ ...compose.services, ...rack3.services })) {
      for (const key of Object.keys(service.environment))
        expect(known.has(key), `${name}: ${key}`).toBe(true);
      expect(() => configOf(service), name).not.toThrow();
    }
  });

  it('places each OSS, its OST ids and its ports as `stripefs cluster up` does, published on 127.0.0.1', () => {
    for (const planned of plan.oss) checkOss(planned.name, compose.services[planned.name], planned);
    const mds = compose.services.mds!;
    const mdsConfig = configOf(mds);
    expect([mdsConfig['mds.grpcPort'], mdsConfig['mds.adminPort']]).toEqual([
      plan.mds.grpcPort,
      plan.mds.adminPort,
    ]);
    // The framed port (batched opens and stats) is fixed and published too, so host clients reach
    // it; `stripefs cluster up` leaves it to any free port on this machine, which its clients reach.
    expect(mdsConfig['mds.framePort']).toBe(7072);
    expect(mds.ports).toEqual([`127.0.0.1:7070:7070`, `127.0.0.1:7071:7071`, `127.0.0.1:7072:7072`]);
    expect(mds.healthcheck?.test.join(' ')).toContain(`/dev/tcp/127.0.0.1/${mdsConfig['mds.adminPort']}`);
  });

  it('runs with auth: the MDS makes the admin and OSS keyrings in the host folder the CLI reads', () => {
    const mds = configOf(compose.services.mds!);
    expect(mds['mds.auth']).toBe(true);
    expect(mds['auth.keyring']).toBe('/keyring/admin.keyring');
    expect(mds['auth.ossKeyring']).toBe('/keyring/oss.keyring');
    expect(compose.services.mds!.volumes).toContain(`${KEYRING_DIR}:/keyring`);
    // Run from the compose file's folder, the host CLI's default keyring is that folder's.
    expect(`${KEYRING_DIR}/admin.keyring`).toBe(`./${DEFAULT_KEYRING_PATH}`);
  });

  it('keeps each service on its own named volume (the keyring folder and /work are host folders)', () => {
    const used = Object.values(compose.services).flatMap((s) =>
      (s.volumes ?? []).map((v) => v.split(':')[0] as string).filter((v) => v !== '.' && v !== KEYRING_DIR),
    );
    expect(new Set(used).size).toBe(used.length);
    expect(used.sort()).toEqual(Object.keys(compose.volumes ?? {}).sort());
  });

  it('compose/rack3.yml adds rack3 as `stripefs cluster add --rack` does', () => {
    const added = grown.oss.slice(plan.oss.length);
    expect(Object.keys(rack3.services).sort()).toEqual(added.map((p) => p.name).sort());
    for (const planned of added) checkOss(planned.name, rack3.services[planned.name], planned);
    expect(Object.keys(rack3.volumes ?? {}).sort()).toEqual(added.map((p) => `${p.name}-data`).sort());
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8').replace(/\\\n\s*/g, '');
  const steps = dockerfile.split('\n').filter((line) => /^[A-Z]+ /.test(line));
  const finalFrom = steps.map((s) => s.startsWith('FROM ')).lastIndexOf(true);
  const buildSteps = steps.slice(0, finalFrom);
  const finalSteps = steps.slice(finalFrom);

  it('builds in the full image and runs from the slim one, copying only what runs', () => {
    expect(steps[0]).toMatch(/^FROM node:20-bookworm AS build$/);
    expect(finalSteps[0]).toBe('FROM node:20-bookworm-slim');
    // No RUN in the final stage: no npm, no compiler, nothing built there.
    expect(finalSteps.filter((s) => s.startsWith('RUN '))).toEqual([]);
    expect(
      finalSteps.filter((s) => s.startsWith('COPY ')).every((s) => s.startsWith('COPY --from=build ')),
    ).toBe(true);
    expect(buildSteps).toContain('COPY package.json package-lock.json ./');
    const mdsCommand = [...MDS_NODE_FLAGS, 'dist/mds/main.js'].map((arg) => `"${arg}"`).join(', ');
    expect(steps.at(-1)).toBe(`CMD [${mdsCommand}]`);
  });

  it('its build stage succeeds in a clean copy and leaves production dependencies only', {
    timeout: 480_000,
  }, () => {
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
      for (const step of buildSteps.filter((s) => s.startsWith('RUN '))) {
        const command = step.slice(4).replace(/^npm ci /, 'npm ci --prefer-offline ');
        execSync(command, { cwd: dir, stdio: 'pipe' });
      }
      for (const script of ['dist/mds/main.js', 'dist/oss/main.js', 'dist/cli/main.js'])
        expect(existsSync(join(dir, script)), script).toBe(true);
      const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      // @types/node stays: protobufjs depends on it at run time.
      for (const dev of Object.keys(manifest.devDependencies).filter((d) => !d.startsWith('@types/')))
        expect(existsSync(join(dir, 'node_modules', dev)), `${dev} left in the image`).toBe(false);
      for (const dep of Object.keys(manifest.dependencies))
        expect(existsSync(join(dir, 'node_modules', dep)), `${dep} missing`).toBe(true);
      expect(readdirSync(join(dir, 'dist'))).not.toContain('test');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
