// Writes into an object file share the OST's open handles (oss/store/read-handles.ts): a run of
// writes into one object opens its file once, not once per write, counted by the OSS itself
// (GET /api/osts). A handle never outlives its file's name: after a delete, or after a first write
// that failed and removed its file, the next write lands in the new file and reads back.
import { describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { adminFetch } from '../helpers/admin-http.js';
import { settle } from '../helpers/errors.js';
import { crc32c, grpcRead, ref, useOss } from './helpers.js';

const MiB = 1024 * 1024;

describe('shared write handles on a real OSS', () => {
  const h = useOss('stripefs-oss-write-handles-');
  const ostId = () => h.oss.ostIds[0]!;
  async function handles(): Promise<{ opened: number; reused: number }> {
    const osts = (await (await adminFetch(`${h.oss.adminUrl}/api/osts`)).json()) as {
      name: string;
      handles: { opened: number; reused: number };
    }[];
    return osts.find((o) => o.name === 'ost0')!.handles;
  }
  const write = (objectId: string, offset: number, data: Buffer, sync = false) =>
    h.oss.bulk.write(ref(ostId(), objectId), offset, data, crc32c(data), { sync });
  const read = async (objectId: string, length: number) =>
    (await grpcRead(h.oss.grpc, ref(ostId(), objectId), 0, length)).data;

  it('opens an object file once for a run of writes into it, sync or not', async () => {
    const writes = 8;
    const data = Buffer.alloc(writes * MiB);
    for (let i = 0; i < writes; i++) data.fill(i + 1, i * MiB, (i + 1) * MiB);
    const before = await handles();
    for (let i = 0; i < writes; i++)
      await write('run', i * MiB, data.subarray(i * MiB, (i + 1) * MiB), i % 2 === 0);
    const after = await handles();
    // Each write asks for one or two handles (the page-cache one, and an O_DIRECT one when it can).
    expect(after.opened - before.opened).toBeLessThanOrEqual(2);
    expect(after.reused - before.reused).toBeGreaterThanOrEqual(writes - 1);
    expect((await read('run', data.length)).equals(data)).toBe(true);
  });

  it('writes into the new file after a delete, never into the one deleted', async () => {
    const first = Buffer.alloc(2 * MiB, 1);
    await write('again', 0, first);
    expect((await call(h.oss.grpc, 'DeleteObject', { ref: ref(ostId(), 'again') })).existed).toBe(true);
    const second = Buffer.alloc(MiB, 2);
    await write('again', 0, second, true);
    expect((await read('again', 4 * MiB)).equals(second)).toBe(true);
  });

  it('writes into a new file after a first write that failed and removed its file', async () => {
    const good = Buffer.alloc(MiB, 5);
    // A wrong declared crc fails the write once its bytes are in the file: the new file is removed.
    const failed = await settle(h.oss.bulk.write(ref(ostId(), 'undone'), 0, good, crc32c(good) ^ 1));
    expect(failed.ok).toBe(false);
    await write('undone', 0, good);
    expect((await read('undone', 2 * MiB)).equals(good)).toBe(true);
  });
});
