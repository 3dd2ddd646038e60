// The OSS never reports a flush it did not do. A real OSS process: an
// object whose data file is gone behind the OSS's back (a damaged disk, an
// operator) flushes as OBJ_NOT_DURABLE, not as a success without fsync, and
// fault knobs given in the configuration (oss.faults) are checked at start.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { fanoutOf } from '../../oss/object-id.js';
import { codeOf, settle } from '../helpers/errors.js';
import { startProcess } from '../helpers/process.js';
import { crc32c, ref, useOss } from './helpers.js';

describe('flush durability', () => {
  const h = useOss('stripefs-oss-durability-');

  it('fails a flush whose data file will not open, and flushes the others', async () => {
    const ostId = h.oss.ostIds[0]!;
    // Past any oss.smallObjectBytes: each object is a data file of its own.
    const data = Buffer.alloc(2 * 1024 * 1024, 7);
    for (const id of ['kept', 'lost']) {
      await h.oss.bulk.write(ref(ostId, id), 0, data, crc32c(data));
      await call(h.oss.grpc, 'Flush', { ref: ref(ostId, id) });
    }
    rmSync(join(h.dir, 'ost0', 'objects', fanoutOf('lost'), 'lost'));
    const lost = await settle(call(h.oss.grpc, 'Flush', { ref: ref(ostId, 'lost') }));
    expect(lost.ok ? 'OK' : lost.code).toBe('OBJ_NOT_DURABLE');
    expect(lost.ok ? '' : lost.err.message).toContain('would not open');
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId, 'kept') });
    // An object that does not exist is still OBJ_NOT_FOUND, as before.
    expect(await codeOf(call(h.oss.grpc, 'Flush', { ref: ref(ostId, 'never') }))).toBe('OBJ_NOT_FOUND');
  });

  it('refuses to start with a bad oss.faults, naming the knob', async () => {
    const started = startProcess({
      script: 'dist/oss/main.js',
      env: {
        STRIPEFS_OSS_ID: 'oss-bad',
        STRIPEFS_OSS_DATA_DIR: join(h.dir, 'bad'),
        STRIPEFS_MDS: h.mds.address,
        STRIPEFS_OSS_FAULTS: '{"writeFailRate":2}',
      },
    });
    const err = (await started.catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain('CONFIG_INVALID');
    expect(err.message).toContain('writeFailRate');
  });
});
