// SIGKILL during 1,000 concurrent creates, then restart: every acknowledged
// create is there with its inode, every entry is whole (attributes inline and
// a back pointer, so Commit by inode finds it), and new inodes never collide.
// The same through the client library, whose concurrent creates travel as
// CreateMany batches. Also: two clients racing renames into one name lose
// nothing.
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { MdsClient } from '../../client/mds-client.js';
import { call, seededRandom, seedFromEnv } from '../../common/index.js';
import { contract } from '../../proto/index.js';
import { signedClientOptions } from '../helpers/auth.js';
import { codeOf } from '../helpers/errors.js';
import { type MdsUnderTest, registerOss, startMds, stopMds, tempDir } from './helpers.js';

const CONCURRENT = 1_000;
const KILL_AFTER_ACKS = 500;
const CREATES_MAX = 50_000;
const COMMITS_IN_FLIGHT = 32;

/**
 * Keeps CONCURRENT creates in flight through `create` until KILL_AFTER_ACKS
 * are acknowledged, SIGKILLs the MDS among them, and returns name -> inode of
 * every acknowledged create.
 */
async function createsUntilKilled(
  mds: MdsUnderTest,
  create: (path: string) => Promise<number>,
): Promise<Map<string, number>> {
  const acked = new Map<string, number>();
  let issued = 0;
  let killing: Promise<void> | undefined;
  const worker = async (): Promise<void> => {
    while (!killing && issued < CREATES_MAX) {
      const name = `f${issued++}`;
      try {
        acked.set(name, await create(`/burst/${name}`));
        if (acked.size >= KILL_AFTER_ACKS && !killing) killing = mds.proc.kill('SIGKILL');
      } catch {
        return; // the server is gone
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, worker));
  await (killing ?? mds.proc.kill('SIGKILL'));
  expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
  expect(issued - acked.size).toBeGreaterThan(0); // the kill landed while creates were in flight
  process.stdout.write(
    `durability: ${acked.size} acknowledged, ${issued - acked.size} in flight at SIGKILL\n`,
  );
  return acked;
}

/** Restarts the MDS on `dir`: every acknowledged create is listed with its inode, whole, and inodes stay unique. */
async function checkAfterRestart(dir: string, acked: Map<string, number>): Promise<void> {
  const second = await startMds(dir);
  try {
    const listed = new Map<string, number>();
    let cursor = '';
    do {
      const page = await call(second.client, 'Readdir', {
        path: '/burst',
        cursor,
        limit: 500,
        withAttrs: true,
      });
      for (const e of page.entries) {
        expect(e.attr?.inode).toBe(e.inode);
        expect(e.attr?.layout?.poolId).toBeGreaterThan(0);
        listed.set(e.name, e.inode);
      }
      cursor = page.nextCursor;
    } while (cursor);
    for (const [name, inode] of acked) expect(listed.get(name), name).toBe(inode);
    const inodes = new Set(listed.values());
    expect(inodes.size).toBe(listed.size);
    // Commit by inode finds every entry (COMMITS_IN_FLIGHT at a time: they are independent).
    const pending = [...inodes];
    const committer = async (): Promise<void> => {
      for (let inode = pending.pop(); inode !== undefined; inode = pending.pop())
        expect(await codeOf(call(second.client, 'Commit', { inode, size: 1 })), `inode ${inode}`).toBe('OK');
    };
    await Promise.all(Array.from({ length: COMMITS_IN_FLIGHT }, committer));
    const fresh = await call(second.client, 'Create', { path: '/burst/after-restart' });
    expect(inodes.has(fresh.attr!.inode)).toBe(false);
  } finally {
    await stopMds(second);
  }
}

describe('durability', () => {
  it('keeps every acknowledged create across SIGKILL, with nothing half-made', async () => {
    const dir = tempDir('mds-crash');
    const first = await startMds(dir);
    await registerOss(first.client, { ossId: 'oss-a', host: 'h0' });
    await call(first.client, 'Mkdir', { path: '/burst' });
    const acked = await createsUntilKilled(
      first,
      async (path) => (await call(first.client, 'Create', { path })).attr!.inode,
    );
    first.client.close();
    await checkAfterRestart(dir, acked);
  });

  it('keeps every create acknowledged from a CreateMany batch across SIGKILL', async () => {
    const dir = tempDir('mds-crash-batched');
    const first = await startMds(dir);
    await registerOss(first.client, { ossId: 'oss-a', host: 'h0' });
    await call(first.client, 'Mkdir', { path: '/burst' });
    const client = new MdsClient(`127.0.0.1:${first.proc.ready.grpcPort}`);
    const acked = await createsUntilKilled(
      first,
      async (path) => (await client.create(path, { exclusive: false, truncate: false })).attr.inode,
    );
    // The creates really travelled in batches.
    expect(client.createBatcher.itemsBatched).toBeGreaterThan(client.createBatcher.batchesSent);
    client.close();
    first.client.close();
    await checkAfterRestart(dir, acked);
  });

  it('two clients renaming into the same name: one wins, nothing is lost', async () => {
    const seed = seedFromEnv();
    process.stdout.write(`rename race seed ${seed} (STRIPEFS_SEED to replay)\n`);
    const random = seededRandom(seed);
    const mds = await startMds(tempDir('mds-race'));
    const address = `127.0.0.1:${mds.proc.ready.grpcPort}`;
    // Two separate connections, as two client processes would have.
    const other = new (contract().MdsService)(
      address,
      grpc.credentials.createInsecure(),
      signedClientOptions({ 'grpc.use_local_subchannel_pool': 1 }),
    );
    try {
      await registerOss(mds.client, { ossId: 'oss-a', host: 'h0' });
      await call(mds.client, 'Mkdir', { path: '/race' });
      for (let round = 0; round < 40; round++) {
        const a = await call(mds.client, 'Create', { path: `/race/a${round}` });
        const b = await call(other, 'Create', { path: `/race/b${round}` });
        const target = `/race/t${round}`;
        // Same target from two sources: both succeed (POSIX replace); the last one's file remains.
        const order = random.int(2) === 0;
        const [ra, rb] = await Promise.all([
          codeOf(call(order ? mds.client : other, 'Rename', { fromPath: `/race/a${round}`, toPath: target })),
          codeOf(call(order ? other : mds.client, 'Rename', { fromPath: `/race/b${round}`, toPath: target })),
        ]);
        expect([ra, rb]).toEqual(['OK', 'OK']);
        const final = (await call(mds.client, 'Stat', { path: target })).attr!.inode;
        expect([a.attr!.inode, b.attr!.inode]).toContain(final);
        // One source to two targets: exactly one rename wins, the other finds nothing.
        const s = await call(mds.client, 'Create', { path: `/race/s${round}` });
        const codes = await Promise.all([
          codeOf(call(mds.client, 'Rename', { fromPath: `/race/s${round}`, toPath: `/race/x${round}` })),
          codeOf(call(other, 'Rename', { fromPath: `/race/s${round}`, toPath: `/race/y${round}` })),
        ]);
        expect([...codes].sort()).toEqual(['NS_NOT_FOUND', 'OK']);
        const where = await call(mds.client, 'StatMany', {
          paths: [`/race/x${round}`, `/race/y${round}`, `/race/s${round}`],
        });
        const found = where.results.filter((r) => r.found);
        expect(found).toHaveLength(1);
        expect(found[0]!.attr!.inode).toBe(s.attr!.inode);
      }
      const listing = await call(mds.client, 'Readdir', { path: '/race', limit: 1000 });
      expect(listing.entries).toHaveLength(80); // t0..t39 and one of x/y per round
    } finally {
      other.close();
      await stopMds(mds);
    }
  });
});
