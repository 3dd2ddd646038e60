// Writes the on-disk fixtures in test/fixtures/disk/: the MDS database and the
// OST folders of a small real cluster (1 MDS, 3 OSSs of one OST each, in
// three hosts), holding a handful of raid0, replicated and ec files, a hole,
// an overwrite, an empty file, a rename and a removal; and, in the same folder's
// manifest (test/fixtures/disk/manifest.json), what that code served: every
// namespace record and every object's size, version, PG and sha256, and the
// commit that wrote them. test/oss/disk-fixtures.test.ts
// and test/mds/disk-fixtures.test.ts open them with today's code: a change to
// either format must migrate them, not surprise a user's data.
//
//   npm run build && node scripts/make-disk-fixtures.mjs
//
// Only public faces are used (the client library, the gRPC contract, the
// processes), so the script runs unchanged on any commit that has them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { startProcess } from '../dist/cli/process.js';
import { StripeClient } from '../dist/client/index.js';
import { CLIENT_OPTIONS, call } from '../dist/common/grpc.js';
import { contract } from '../dist/proto/index.js';

const OUT = 'test/fixtures/disk';
const OSS_COUNT = 3;
const READY_TIMEOUT_MS = 30_000;
/** LevelDB's text log and lock: rewritten on every open, not part of the format. */
const SKIPPED_FILES = new Set(['LOG', 'LOG.old', 'LOCK']);

/** Deterministic, compressible bytes (git stores them in little room): numbered text lines. */
function content(name, length) {
  let text = '';
  for (let line = 0; text.length < length; line++) text += `${name} line ${line} ${'='.repeat(line % 37)}\n`;
  return Buffer.from(text.slice(0, length));
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');
const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();

async function waitForOsts(adminUrl, count) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    // An MDS still starting refuses the connection: not ready yet, asked again below.
    const res = await fetch(`${adminUrl}/api/cluster`).catch(() => undefined);
    const body = res?.ok ? await res.json() : undefined;
    if (body && body.counts.osts === count && body.counts.up === count && body.counts.in === count)
      return body;
    if (Date.now() > deadline) throw new Error(`cluster not ready: ${JSON.stringify(body?.counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The files: each step is one thing users do, so the records and objects hold each kind of state. */
async function writeFiles(client) {
  const repl = {
    pattern: 'replicated',
    stripeSize: 65536,
    stripeCount: 1,
    replicas: 2,
    failureDomain: 'host',
  };
  const ec = { pattern: 'ec', stripeSize: 65536, k: 2, m: 1, failureDomain: 'host' };
  await client.mkdir('/data');
  await client.mkdir('/data/ec', { layout: ec });
  await client.writeFile('/small.txt', content('small', 1000));
  // Two stripe units over two objects, the second unit short.
  await client.writeFile('/data/striped.bin', content('striped', 65536 + 9000), {
    layout: { pattern: 'raid0', stripeSize: 65536, stripeCount: 2 },
  });
  await client.writeFile('/data/replicated.bin', content('replicated', 5000), { layout: repl });
  await client.writeFile('/data/ec/chunks.bin', content('ec', 12000)); // inherits the directory's ec
  // A hole: bytes at 0 and past the first 64 KiB block, nothing between (two blocks, one never written).
  const sparse = await client.open('/sparse.bin', 'w');
  await sparse.write(content('head', 700), 0, 700, 0);
  await sparse.write(content('tail', 900), 0, 900, 66000);
  await sparse.close();
  // Overwritten in the middle: its object's version is past 1.
  await client.writeFile('/overwritten.txt', content('before', 3000));
  const over = await client.open('/overwritten.txt', 'r+');
  await over.write(content('after', 500), 0, 500, 1000);
  await over.close();
  await client.writeFile('/empty', Buffer.alloc(0));
  await client.writeFile('/renamed-from.txt', content('renamed', 800));
  await client.rename('/renamed-from.txt', '/data/renamed.txt');
  await client.writeFile('/removed.txt', content('removed', 600));
  await client.unlink('/removed.txt');
}

/** Every namespace record, through Readdir with attributes (depth first, names in order). */
async function namespaceOf(mds) {
  const records = [];
  const root = await call(mds, 'Stat', { path: '/' });
  records.push({ path: '/', attr: root.attr });
  const walk = async (dir) => {
    let cursor = '';
    do {
      const page = await call(mds, 'Readdir', { path: dir, cursor, limit: 0, withAttrs: true });
      for (const entry of page.entries) {
        const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
        records.push({ path, attr: entry.attr });
        if (entry.type === 'FILE_TYPE_DIRECTORY') await walk(path);
      }
      cursor = page.nextCursor;
    } while (cursor);
  };
  await walk('/');
  return records;
}

/** Every object of one OST through ListObjects (every PG of every pool), each read whole. */
async function objectsOf(oss, ostId, pools) {
  const objects = [];
  for (const pool of pools) {
    for (let pg = 0; pg < pool.pgCount; pg++) {
      const page = await call(oss, 'ListObjects', { ostId, poolId: pool.id, pg, cursor: '', limit: 1000 });
      if (page.nextCursor) throw new Error('more objects in one PG than the fixture expects');
      for (const o of page.objects) {
        const ref = { ostId, objectId: o.objectId, poolId: pool.id, pg, mapEpoch: 0 };
        const stat = await call(oss, 'StatObject', { ref });
        const data = await readRange(oss, ref, Number(o.size));
        objects.push({
          objectId: o.objectId,
          poolId: pool.id,
          pg,
          size: Number(o.size),
          version: Number(o.version),
          mtimeMs: Number(stat.mtimeMs),
          sha256: sha256(data),
        });
      }
    }
  }
  return objects.sort((a, b) => (a.objectId < b.objectId ? -1 : 1));
}

function readRange(oss, ref, length) {
  return new Promise((resolve, reject) => {
    const parts = [];
    const stream = oss.ReadRange({ ref, offset: 0, length });
    stream.on('data', (msg) => parts.push(msg.data));
    stream.on('error', reject);
    stream.on('end', () => resolve(Buffer.concat(parts)));
  });
}

/** Copies a data folder without LevelDB's log and lock, and without empty folders (git keeps none). */
function copyTree(from, to) {
  cpSync(from, to, {
    recursive: true,
    filter: (src) => !SKIPPED_FILES.has(src.slice(src.lastIndexOf('/') + 1)),
  });
  const dirs = readdirSync(to, { withFileTypes: true, recursive: true }).filter((e) => e.isDirectory());
  for (const d of dirs.reverse()) {
    const path = join(d.parentPath, d.name);
    if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
  }
}

function treeBytes(dir) {
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) bytes += statSync(join(e.parentPath, e.name)).size;
  return bytes;
}

/** 1 MDS and OSS_COUNT OSSs of one OST each, in hosts h0.. and racks r0.., on free ports under `work`. */
async function startCluster(work, procs) {
  const mds = await startProcess({
    script: 'dist/mds/main.js',
    env: {
      STRIPEFS_MDS_GRPC_PORT: '0',
      STRIPEFS_MDS_ADMIN_PORT: '0',
      STRIPEFS_MDS_DATA_DIR: join(work, 'mds'),
      STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: '200',
      STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: '1000',
    },
  });
  procs.push(mds);
  const mdsAddress = `127.0.0.1:${mds.ready.grpcPort}`;
  const adminUrl = `http://127.0.0.1:${mds.ready.adminPort}`;
  for (let i = 0; i < OSS_COUNT; i++) {
    const env = {
      STRIPEFS_MDS: mdsAddress,
      STRIPEFS_OSS_ID: `oss${i}`,
      STRIPEFS_OSS_HOST: `h${i}`,
      STRIPEFS_OSS_RACK: `r${i}`,
      STRIPEFS_OSS_DATA_DIR: join(work, `oss${i}`),
      STRIPEFS_OSS_OSTS: '1',
      STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: '200',
    };
    procs.push(await startProcess({ script: 'dist/oss/main.js', env }));
  }
  await waitForOsts(adminUrl, OSS_COUNT);
  return { mdsAddress, adminUrl };
}

/** The removed file's objects go through the destroy queue: waits until it is empty. */
async function drainDestroyQueue(adminUrl) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while ((await (await fetch(`${adminUrl}/api/destroy-queue`)).json()).files > 0) {
    if (Date.now() > deadline) throw new Error('destroy queue not drained');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What the running cluster serves: pools, every namespace record, every file's and object's hash. */
async function served(mdsAddress, adminUrl, ossProcs) {
  const v1 = contract();
  const cluster = (await (await fetch(`${adminUrl}/api/cluster`)).json()).map;
  const pools = cluster.pools.map((p) => ({ id: p.id, pgCount: p.pgCount, rule: p.rule }));
  const mds = new v1.MdsService(mdsAddress, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
  const namespace = await namespaceOf(mds);
  mds.close();
  const files = [];
  const reader = await StripeClient.connect({ mds: mdsAddress, seed: 1 });
  for (const r of namespace.filter((n) => n.attr.type === 'FILE_TYPE_FILE'))
    files.push({ path: r.path, sha256: sha256(await reader.readFile(r.path)) });
  await reader.close();
  const osts = [];
  for (const [i, proc] of ossProcs.entries()) {
    const address = `127.0.0.1:${proc.ready.grpcPort}`;
    const oss = new v1.OssService(address, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
    const id = proc.ready.osts[0].id;
    osts.push({ oss: `oss${i}`, host: `h${i}`, ost: 'ost0', id, objects: await objectsOf(oss, id, pools) });
    oss.close();
  }
  return { pools, namespace, files, osts };
}

async function main() {
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const writtenBy = { commit: git('rev-parse', 'HEAD'), dirtyTree: dirty, node: process.version };
  const work = mkdtempSync(join(tmpdir(), 'stripefs-fixtures-'));
  const procs = [];
  try {
    const { mdsAddress, adminUrl } = await startCluster(work, procs);
    const client = await StripeClient.connect({ mds: mdsAddress, seed: 1 });
    try {
      await writeFiles(client);
    } finally {
      await client.close();
    }
    await drainDestroyQueue(adminUrl);
    const state = await served(mdsAddress, adminUrl, procs.slice(1));
    // Servers stop cleanly (as after an orderly shutdown): the OSSs first, the MDS last.
    for (const p of procs.slice(1)) await p.stop();
    await procs[0].stop();
    rmSync(OUT, { recursive: true, force: true });
    copyTree(join(work, 'mds'), join(OUT, 'mds'));
    for (let i = 0; i < OSS_COUNT; i++) copyTree(join(work, `oss${i}`), join(OUT, `oss${i}`));
    const about =
      'Written by scripts/make-disk-fixtures.mjs; opened by test/oss/ and test/mds/disk-fixtures.test.ts';
    const manifest = { about, writtenBy, ...state };
    writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const objects = state.osts.reduce((n, o) => n + o.objects.length, 0);
    console.log(
      `fixtures written to ${relative('.', OUT)} by ${writtenBy.commit}${dirty ? ' (uncommitted changes!)' : ''}: ` +
        `${state.namespace.length} records, ${objects} objects, ${treeBytes(OUT)} bytes`,
    );
  } finally {
    // Already stopped on success; on a failure none may outlive the script.
    for (const p of procs) await p.kill().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
