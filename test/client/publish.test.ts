// writeFile through a reserved inode (ReserveInodes, then the objects, then one PublishMany) on a
// real cluster with auth: once the folder's reservation is there a writeFile costs exactly one MDS
// call, counted at the MDS; a name that exists is refused with its code (exclusive) or replaced,
// and nothing stored under it is lost; a folder the caller may not write gets no reservation
// and a publish outside the caps is refused, its objects collected; a writer killed between its
// objects and its publish leaves objects the MDS collects once the lease ends.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFsck } from '../../cli/fsck/index.js';
import { StripeClient } from '../../client/index.js';
import { RESERVE_INODES_FIRST } from '../../client/reservations.js';
import { readKeyring } from '../../common/auth/keyring.js';
import { mdsCalls } from '../helpers/admin-http.js';
import { runCli } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { storedLocation } from '../helpers/stored-bytes.js';
import { tempDir } from '../mds/helpers.js';

const SEED = Number(process.env.STRIPEFS_SEED ?? 24_064);
const K = 1024;
const LEASE_MS = 3_000;
const REP3 = {
  pattern: 'replicated',
  stripeSize: 1024 * K,
  stripeCount: 1,
  replicas: 3,
  failureDomain: 'host',
} as const;
/** The MDS calls a write path could make. */
const WRITE_OPS = ['create', 'createMany', 'commit', 'commitMany', 'reserveInodes', 'publishMany'];

describe('writeFile through reserved inodes: one MDS call per file', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const dir = tempDir('publish');

  const callsNow = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const op of WRITE_OPS) out[op] = await mdsCalls(cluster.mdsAdminUrl, op);
    return out;
  };
  const callsSince = async (before: Record<string, number>) => {
    const after = await callsNow();
    return Object.fromEntries(
      WRITE_OPS.map((op) => [op, (after[op] ?? 0) - (before[op] ?? 0)]).filter(([, n]) => n !== 0),
    );
  };
  /** Copies of an object the OSSs hold. */
  const copiesOf = async (objectId: string): Promise<number> => {
    let copies = 0;
    for (const spec of cluster.specs)
      for (const ostId of cluster.ostsOf(spec.id))
        if (await storedLocation(cluster.adminUrlOf(spec.id), ostId, objectId)) copies++;
    return copies;
  };

  beforeAll(async () => {
    cluster = await startCluster({
      pgCount: 32,
      extraEnv: { STRIPEFS_MDS_RESERVE_LEASE_MS: String(LEASE_MS) },
    });
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    await client.mkdir('/p');
    await client.setLayout('/p', REP3);
  }, 300_000);
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('costs one PublishMany per file once the folder has inodes reserved, and reads back', async () => {
    // The first file reserves inodes for itself and the next ones (RESERVE_INODES_FIRST).
    await client.writeFile('/p/warm', seededBytes(64 * K, SEED));
    expect(RESERVE_INODES_FIRST).toBeGreaterThanOrEqual(4);
    const before = await callsNow();
    // Written one after another: each is its own publish (no batching hides a second call).
    for (let i = 0; i < 3; i++) await client.writeFile(`/p/f${i}`, seededBytes(64 * K, SEED + i));
    expect(await callsSince(before)).toEqual({ publishMany: 3 });
    for (let i = 0; i < 3; i++) {
      expect((await client.readFile(`/p/f${i}`)).equals(seededBytes(64 * K, SEED + i))).toBe(true);
      expect((await client.stat(`/p/f${i}`)).size).toBe(64 * K);
    }
    // An empty file is published too, and a rewrite replaces the file whole.
    await client.writeFile('/p/empty', Buffer.alloc(0));
    expect((await client.stat('/p/empty')).size).toBe(0);
    await client.writeFile('/p/f0', seededBytes(10 * K, SEED + 99));
    expect((await client.readFile('/p/f0')).equals(seededBytes(10 * K, SEED + 99))).toBe(true);
    expect(client.stats().dom).toBeDefined();
  });

  it('refuses a name that exists (exclusive) or is a folder, with its code; what is stored there stays', async () => {
    const kept = seededBytes(64 * K, SEED + 7);
    await client.writeFile('/p/kept', kept);
    const { inode } = await client.stat('/p/kept');
    expect(await codeOf(client.writeFile('/p/kept', seededBytes(64 * K, SEED + 8), { flag: 'wx' }))).toBe(
      'NS_EXISTS',
    );
    await client.mkdir('/p/sub');
    expect(await codeOf(client.writeFile('/p/sub', seededBytes(64 * K, SEED + 9)))).toBe('NS_IS_DIR');
    expect((await client.stat('/p/kept')).inode).toBe(inode);
    expect((await client.readFile('/p/kept')).equals(kept)).toBe(true);
    expect((await client.stat('/p/sub')).type).toBe('directory');
    // exclusive on a new name publishes.
    await client.writeFile('/p/new', seededBytes(4 * K, SEED + 10), { flag: 'wx' });
    expect((await client.stat('/p/new')).size).toBe(4 * K);
  });

  it('keeps caps: no reservation outside them, and a publish outside them refused', async () => {
    await client.mkdir('/mine');
    await client.mkdir('/theirs');
    await client.setLayout('/mine', REP3);
    await client.setLayout('/theirs', REP3);
    const cli = (args: string[]) => runCli([...args, '--mds', cluster.mdsAddress], { cwd: dir });
    expect((await cli(['auth', 'add', 'carol', '--caps', 'rw /mine, r /theirs'])).code).toBe(0);
    const carol = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      keyring: join(dir, 'carol.keyring'),
    });
    try {
      await carol.writeFile('/mine/a', seededBytes(64 * K, SEED + 20));
      expect((await client.readFile('/mine/a')).equals(seededBytes(64 * K, SEED + 20))).toBe(true);
      expect(await codeOf(carol.writeFile('/theirs/a', seededBytes(64 * K, SEED + 21)))).toBe('AUTH_DENIED');
      expect(await codeOf(client.stat('/theirs/a'))).toBe('NS_NOT_FOUND');
      // No inode is reserved for her where she may not write; her writeFiles there are refused
      // as creates.
      expect(await carol.reservations.take('/theirs')).toBeUndefined();
      expect(await codeOf(carol.writeFile('/theirs/a', seededBytes(64 * K, SEED + 21)))).toBe('AUTH_DENIED');
      // Her writeFile's publish sent under a name outside her caps: refused, the name stays
      // free, and the objects she wrote under the reserved inode are collected.
      // biome-ignore lint/suspicious/noExplicitAny: the client's MDS connection, as a test reaches it
      const mds = (carol as any).ctx.mds as {
        publish(item: { path: string; inode: number }): Promise<unknown>;
      };
      const publish = mds.publish.bind(mds);
      let inode = 0;
      mds.publish = (item) => {
        inode = item.inode;
        return publish({ ...item, path: '/theirs/b' });
      };
      expect(await codeOf(carol.writeFile('/mine/b', seededBytes(64 * K, SEED + 22)))).toBe('AUTH_DENIED');
      mds.publish = publish;
      expect(await codeOf(client.stat('/theirs/b'))).toBe('NS_NOT_FOUND');
      expect(await codeOf(client.stat('/mine/b'))).toBe('NS_NOT_FOUND');
      expect(inode).toBeGreaterThan(0);
      await eventually(
        async () => {
          const copies = await copiesOf(`${inode}.0`);
          if (copies > 0) throw new Error(`${copies} copies left`);
          return true;
        },
        { timeoutMs: 120_000, what: `the objects of refused inode ${inode} collected` },
      );
      // Nor may she publish it again.
      expect(await codeOf(mds.publish({ path: '/mine/b', inode, size: 0, mtimeMs: 1 } as never))).toBe(
        'NS_NOT_RESERVED',
      );
      // Another client's reservation is not hers to publish.
      const theirs = await client.reservations.take('/mine');
      expect(
        await codeOf(
          mds.publish({ path: '/mine/c', inode: Number(theirs!.inode), size: 0, mtimeMs: 1 } as never),
        ),
      ).toBe('NS_NOT_RESERVED');
    } finally {
      await carol.close();
    }
    expect(readKeyring(join(dir, 'carol.keyring')).name).toBe('carol');
  });

  it('fsck counts the objects of a write not yet published as in flight: no orphan, nothing deleted', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the client's MDS connection, as a test reaches it
    const mds = (client as any).ctx.mds as { publish(item: { inode: number }): Promise<unknown> };
    const publish = mds.publish.bind(mds);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inode = 0;
    let reached: () => void = () => {};
    const atPublish = new Promise<void>((resolve) => {
      reached = resolve;
    });
    mds.publish = async (item) => {
      inode = item.inode;
      reached();
      await held;
      return publish(item);
    };
    const body = seededBytes(64 * K, SEED + 30);
    const writing = client.writeFile('/p/in-flight', body);
    try {
      await atPublish;
      expect(await copiesOf(`${inode}.0`)).toBe(3);
      const fsck = await runFsck({ mdsAddress: cluster.mdsAddress, repair: true, verify: false });
      expect(fsck.before.orphans.filter((o) => o.objectId.startsWith(`${inode}.`))).toEqual([]);
      expect(fsck.repairs.filter((a) => a.objectId.startsWith(`${inode}.`))).toEqual([]);
      expect(await copiesOf(`${inode}.0`)).toBe(3);
    } finally {
      release();
      mds.publish = publish;
    }
    await writing;
    expect((await client.readFile('/p/in-flight')).equals(body)).toBe(true);
  });

  it('collects the objects of a writer killed between its writes and its publish', async () => {
    // A real client process whose publish never leaves: it prints the inode once the objects are
    // written, and is killed there.
    const script = `
      const { StripeClient } = await import(${JSON.stringify(join(process.cwd(), 'dist/client/index.js'))});
      const client = await StripeClient.connect({ mds: ${JSON.stringify(cluster.mdsAddress)} });
      client.ctx.mds.publish = (item) => {
        process.stdout.write(JSON.stringify({ inode: item.inode }) + '\\n');
        return new Promise(() => {});
      };
      await client.writeFile('/p/dead-warm', Buffer.alloc(${64 * K}, 6));
      await client.writeFile('/p/dead', Buffer.alloc(${64 * K}, 7));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const printed = new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { inode: number }).inode);
      });
      child.on('exit', (code) => reject(new Error(`writer exited (${code}) before its publish`)));
      setTimeout(() => reject(new Error('the writer printed no inode in 120 s')), 120_000).unref();
    });
    const inode = await printed.catch((err: unknown) => {
      child.kill('SIGKILL');
      throw err;
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    // Its three copies are stored, its name is not there.
    expect(await copiesOf(`${inode}.0`)).toBe(3);
    expect(await codeOf(client.stat('/p/dead'))).toBe('NS_NOT_FOUND');
    await eventually(
      async () => {
        const copies = await copiesOf(`${inode}.0`);
        if (copies > 0) throw new Error(`${copies} copies left`);
        return true;
      },
      { timeoutMs: 120_000, what: `the objects of reserved inode ${inode} collected after the lease` },
    );
    expect(await codeOf(client.stat('/p/dead'))).toBe('NS_NOT_FOUND');
  });
});
