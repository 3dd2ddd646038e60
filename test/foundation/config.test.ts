import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_SCHEMA, envNameOf, knownEnvNames, loadConfig, StripeError } from '../../common/index.js';

function configError(fn: () => unknown): StripeError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StripeError) return err;
    throw err;
  }
  throw new Error('expected a CONFIG_INVALID error');
}

describe('configuration', () => {
  it('uses the defaults when nothing is set', () => {
    const config = loadConfig({ env: {} });
    expect(config['mds.address']).toBe('127.0.0.1:7070');
    expect(config['mds.heartbeatTimeoutMs']).toBe(CONFIG_SCHEMA['mds.heartbeatTimeoutMs'].default);
  });

  it('derives environment names and lets STRIPEFS_MDS set the MDS address', () => {
    expect(envNameOf('oss.ostCapacityBytes')).toBe('STRIPEFS_OSS_OST_CAPACITY_BYTES');
    expect(envNameOf('mds.address')).toBe('STRIPEFS_MDS');
    const config = loadConfig({ env: { STRIPEFS_MDS: '10.0.0.5:9000', STRIPEFS_OSS_RACK: 'r7' } });
    expect(config['mds.address']).toBe('10.0.0.5:9000');
    expect(config['oss.rack']).toBe('r7');
    expect(knownEnvNames().has('STRIPEFS_OSS_GRPC_PORT')).toBe(true);
  });

  it('layers file < environment < overrides', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stripefs-config-'));
    const file = join(dir, 'stripefs.yaml');
    writeFileSync(file, 'oss:\n  rack: from-file\n  host: h-file\n  osts: 3\n');
    const config = loadConfig({ file, env: { STRIPEFS_OSS_HOST: 'h-env' }, overrides: { 'oss.osts': 5 } });
    expect(config['oss.rack']).toBe('from-file');
    expect(config['oss.host']).toBe('h-env');
    expect(config['oss.osts']).toBe(5);
  });

  it('names the bad key, its environment variable and the expected form', () => {
    const err = configError(() => loadConfig({ env: { STRIPEFS_OSS_GRPC_PORT: 'abc' } }));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain('oss.grpcPort');
    expect(err.message).toContain('STRIPEFS_OSS_GRPC_PORT');
    expect(err.message).toContain('an integer from 0 to 65535');
    expect(configError(() => loadConfig({ env: { STRIPEFS_LOG_LEVEL: 'loud' } })).message).toContain(
      'one of trace',
    );
    expect(configError(() => loadConfig({ env: { STRIPEFS_MDS: 'nohost' } })).message).toContain('HOST:PORT');
  });

  it('rejects unknown keys in a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stripefs-config-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'oss:\n  rackk: typo\n');
    expect(configError(() => loadConfig({ file, env: {} })).message).toContain('unknown key oss.rackk');
  });
});
