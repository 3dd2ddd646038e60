// The bulk server's two ways of reading its sockets (oss/bulk-socket.ts): the
// user-buffer path, which adopts the accepted socket's private handle, and the
// plain path. The start-up check must pass on this Node and must fail (so the
// OSS falls back, loudly) when the internals are not what it expects; both
// paths must carry the same bytes in a real OSS, which reports the live one in
// its ready line, /healthz and metrics.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SocketReader } from '../../common/bulk/socket-reader.js';
import { adoptWithUserBuffer, checkUserBuffer, chooseBulkSocketPath } from '../../oss/bulk-socket.js';
import { adminFetch } from '../helpers/admin-http.js';
import { type FakeMds, startFakeMds } from './fake-mds.js';
import { crc32c, type OssUnderTest, ref, startOss, tempDir } from './helpers.js';

const MiB = 1024 * 1024;

describe('the start-up check of Node socket internals', () => {
  it('passes on this Node: a probe arrives through the reused buffer and its echo goes back', async () => {
    expect(await checkUserBuffer()).toBeUndefined();
    expect(await chooseBulkSocketPath(true)).toEqual({ path: 'user-buffer' });
  });

  it('fails when the accepted socket has no handle of the expected shape', async () => {
    // As after a Node upgrade that renamed or reshaped the private handle.
    const problem = await checkUserBuffer((accepted) =>
      adoptWithUserBuffer(Object.assign(Object.create(accepted) as typeof accepted, { _handle: {} })),
    );
    expect(problem).toMatch(/no _handle with useUserBuffer/);
  });

  it('fails when bytes never come through the reused buffer', async () => {
    // As a Node that accepted the handle but ignored `onread`: the reader is fed by nothing.
    const problem = await checkUserBuffer(
      (accepted) => ({
        socket: accepted,
        reader: new SocketReader(accepted, MiB, { external: true }),
      }),
      300,
    );
    expect(problem).toMatch(/no answer within 300 ms/);
  });

  it('a failed check or the switch turned off choose the plain path, with the reason', async () => {
    expect(await chooseBulkSocketPath(true, async () => 'internals moved')).toEqual({
      path: 'plain',
      problem: 'internals moved',
    });
    let checked = false;
    const off = await chooseBulkSocketPath(false, async () => {
      checked = true;
      return undefined;
    });
    expect(off).toEqual({ path: 'plain' });
    expect(checked).toBe(false);
  });
});

describe.each<{ path: string; env: Record<string, string> }>([
  { path: 'user-buffer', env: {} },
  { path: 'plain', env: { STRIPEFS_OSS_BULK_USER_BUFFER: 'false' } },
])('a real OSS on the $path path', ({ path, env }) => {
  let mds: FakeMds;
  let oss: OssUnderTest;
  const tmp = tempDir(`stripefs-oss-socket-${path}-`);

  beforeAll(async () => {
    mds = await startFakeMds();
    oss = await startOss(mds, tmp.dir, env);
  });
  afterAll(async () => {
    await oss?.stop();
    await mds?.close();
    tmp.remove();
  });

  it('reports the path in its ready line, /healthz and metrics', async () => {
    expect((oss.proc.ready as { bulkSocketPath?: string }).bulkSocketPath).toBe(path);
    const health = (await (await adminFetch(`${oss.adminUrl}/healthz`)).json()) as { bulkSocketPath: string };
    expect(health.bulkSocketPath).toBe(path);
    const metrics = await (await adminFetch(`${oss.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^stripefs_oss_bulk_socket_path\\{path="${path}"[^}]*\\} 1$`, 'm'));
    expect(metrics).toMatch(/^stripefs_oss_bulk_socket_fallbacks_total(\{[^}]*\})? 0$/m);
  });

  it('carries writes, reads and runs byte for byte', async () => {
    // Larger than a staging buffer, and uneven, so segments split across socket reads.
    const data = randomBytes(9 * MiB + 12_345);
    const r = ref(oss.ostIds[0]!, `socket.${path}`);
    const writes = [0, 3 * MiB, 6 * MiB].map((at) => {
      const piece = data.subarray(at, Math.min(data.length, at + 3 * MiB + (at === 6 * MiB ? 12_345 : 0)));
      return oss.bulk.write(r, at, piece, crc32c(piece));
    });
    await Promise.all(writes);
    expect((await oss.bulk.read(r, 0, data.length)).equals(data)).toBe(true);
    const parts: Buffer[] = [];
    const run = await oss.bulk.readRun(r, MiB, [MiB, MiB, MiB], (i, part) => {
      parts[i] = part;
    });
    expect(run).toEqual({ complete: true });
    expect(Buffer.concat(parts).equals(data.subarray(MiB, 4 * MiB))).toBe(true);
  });
});
