// The OSS never reports a flush it did not do. A real OSS process: an
// object whose data file is gone behind the OSS's back (a damaged disk, an
// operator) flushes as OBJ_NOT_DURABLE, not as a success without fsync, and
// fault knobs given in the configuration (oss.faults) are checked at start.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { fanoutOf } from '../../oss/object-id.js';
import { startProcess } from '../helpers/process.js';
import { type FakeMds, startFakeMds } from './fake-mds.js';
import { crc32c, type OssUnderTest, ref, startOss, tempDir } from './helpers.js';

const codeOf = (e: unknown): string => (e as { code?: string }).code ?? String(e);

describe('flush durability', () => {
  let mds: FakeMds;
  let oss: OssUnderTest;
  const tmp = tempDir('stripefs-oss-durability-');

  beforeAll(async () => {
    mds = await startFakeMds();
    oss = await startOss(mds, tmp.dir);
  });
  afterAll(async () => {
    await oss?.stop();
    await mds?.close();
    tmp.remove();
  });

  it('fails a flush whose data file will not open, and flushes the others', async () => {
    const ostId = oss.ostIds[0]!;
    const data = Buffer.alloc(100_000, 7);
    for (const id of ['kept', 'lost']) {
      await oss.bulk.write(ref(ostId, id), 0, data, crc32c(data));
      await call(oss.grpc, 'Flush', { ref: ref(ostId, id) });
    }
    rmSync(join(tmp.dir, 'ost0', 'objects', fanoutOf('lost'), 'lost'));
    const err = await call(oss.grpc, 'Flush', { ref: ref(ostId, 'lost') }).catch((e: unknown) => e);
    expect(codeOf(err)).toBe('OBJ_NOT_DURABLE');
    expect(String((err as Error).message)).toContain('would not open');
    await call(oss.grpc, 'Flush', { ref: ref(ostId, 'kept') });
    // An object that does not exist is still OBJ_NOT_FOUND, as before.
    const missing = await call(oss.grpc, 'Flush', { ref: ref(ostId, 'never') }).catch((e: unknown) => e);
    expect(codeOf(missing)).toBe('OBJ_NOT_FOUND');
  });

  it('refuses to start with a bad oss.faults, naming the knob', async () => {
    const started = startProcess({
      script: 'dist/oss/main.js',
      env: {
        STRIPEFS_OSS_ID: 'oss-bad',
        STRIPEFS_OSS_DATA_DIR: join(tmp.dir, 'bad'),
        STRIPEFS_MDS: mds.address,
        STRIPEFS_OSS_FAULTS: '{"writeFailRate":2}',
      },
    });
    const err = (await started.catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain('CONFIG_INVALID');
    expect(err.message).toContain('writeFailRate');
  });
});
