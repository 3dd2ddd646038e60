// O_DIRECT writes: whole aligned blocks of a write bypass the page cache, the
// unaligned rest goes through it, and every byte reads back as written, with
// overwrites that mix both paths. With oss.directIo=false nothing goes direct.
// The second OSS also runs the @node-rs/crc32 fallback (STRIPEFS_CRC32C):
// both checksum implementations meet on the same wire, and /metrics names
// the one each OSS runs.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminFetch } from '../helpers/admin-http.js';
import { type FakeMds, startFakeMds } from './fake-mds.js';
import { crc32c, grpcWrite, type OssUnderTest, ostGauge, ref, startOss, tempDir } from './helpers.js';

const MiB = 1024 * 1024;

describe('OSS O_DIRECT writes', () => {
  let mds: FakeMds;
  let direct: OssUnderTest;
  let paged: OssUnderTest;
  const tmpA = tempDir('stripefs-oss-direct-');
  const tmpB = tempDir('stripefs-oss-paged-');

  beforeAll(async () => {
    mds = await startFakeMds();
    direct = await startOss(mds, tmpA.dir);
    paged = await startOss(mds, tmpB.dir, {
      STRIPEFS_OSS_ID: 'oss-b',
      STRIPEFS_OSS_DIRECT_IO: 'false',
      STRIPEFS_CRC32C: 'node-rs',
    });
  });
  afterAll(async () => {
    await direct?.stop();
    await paged?.stop();
    await mds?.close();
    tmpA.remove();
    tmpB.remove();
  });

  it('names its crc32c implementation in /metrics: the SSE4.2 addon, or the fallback when told', async () => {
    const backend = async (oss: OssUnderTest) =>
      (await (await adminFetch(`${oss.adminUrl}/metrics`)).text()).match(
        /^stripefs_oss_crc32c_backend\{backend="([^"]+)"[^}]*\} 1$/m,
      )?.[1];
    expect(await backend(direct)).toBe(process.arch === 'x64' ? 'stripefs-sse42' : '@node-rs/crc32');
    expect(await backend(paged)).toBe('@node-rs/crc32');
  });

  it('aligned blocks go direct, the tail through the page cache, and all of it reads back', async () => {
    const data = randomBytes(4 * MiB + 1000);
    const r = ref(direct.ostIds[0]!, 'direct.0');
    await direct.bulk.write(r, 0, data, crc32c(data));
    expect(await ostGauge(direct, 'stripefs_oss_direct_write_bytes', 'ost0')).toBe(4 * MiB);
    expect(await ostGauge(direct, 'stripefs_oss_paged_write_bytes', 'ost0')).toBe(1000);
    expect((await direct.bulk.read(r, 0, data.length)).equals(data)).toBe(true);

    // An unaligned overwrite inside the direct-written range (page cache), then an aligned one (direct).
    const patch = randomBytes(5000);
    await direct.bulk.write(r, 12345, patch, crc32c(patch));
    patch.copy(data, 12345);
    const block = randomBytes(MiB);
    await direct.bulk.write(r, MiB, block, crc32c(block));
    block.copy(data, MiB);
    expect(await ostGauge(direct, 'stripefs_oss_direct_write_bytes', 'ost0')).toBe(5 * MiB);
    expect((await direct.bulk.read(r, 0, data.length)).equals(data)).toBe(true);

    // gRPC writes are staged into the same aligned buffers.
    const viaGrpc = randomBytes(2 * MiB);
    const g = ref(direct.ostIds[0]!, 'direct.1');
    await grpcWrite(direct.grpc, g, 0, viaGrpc);
    expect(await ostGauge(direct, 'stripefs_oss_direct_write_bytes', 'ost0')).toBe(7 * MiB);
    expect((await direct.bulk.read(g, 0, viaGrpc.length)).equals(viaGrpc)).toBe(true);
  });

  it('oss.directIo=false writes everything through the page cache', async () => {
    const data = randomBytes(2 * MiB);
    const r = ref(paged.ostIds[0]!, 'paged.0');
    await paged.bulk.write(r, 0, data, crc32c(data));
    expect(await ostGauge(paged, 'stripefs_oss_direct_write_bytes', 'ost0')).toBe(0);
    expect(await ostGauge(paged, 'stripefs_oss_paged_write_bytes', 'ost0')).toBe(2 * MiB);
    expect((await paged.bulk.read(r, 0, data.length)).equals(data)).toBe(true);
  });
});
