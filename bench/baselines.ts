// Baselines measured in the same run as the figures they judge: a raw TCP
// socket between two Node processes, a bare default @grpc/grpc-js stream,
// local-disk sequential write of new data and read of the same bytes,
// local-file-system metadata operations, and memory copy speed.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, rmSync } from 'node:fs';
import { mkdir, open, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Semaphore } from '../common/semaphore.js';

const MiB = 1024 * 1024;

function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}

/** Bytes per second a child Node process pushes to this one over a raw loopback socket. */
export async function rawSocketPump(totalBytes: number): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  const sender = `
    const net = require('node:net');
    const buf = Buffer.alloc(${MiB}, 7);
    const socket = net.connect(${port}, '127.0.0.1', () => {
      let left = ${totalBytes};
      const pump = () => {
        while (left > 0) { left -= buf.length; if (!socket.write(buf)) return socket.once('drain', pump); }
        socket.end();
      };
      pump();
    });`;
  const child = spawn(process.execPath, ['-e', sender], { stdio: 'ignore' });
  const [socket] = (await once(server, 'connection')) as [import('node:net').Socket];
  const start = process.hrtime.bigint();
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
  });
  await once(socket, 'end');
  const rate = received / seconds(start);
  server.close();
  await once(child, 'exit');
  return rate;
}

/** Bytes per second of new data written sequentially (4 MiB writes, one fsync at the end), then read back. */
export async function localDisk(
  dir: string,
  totalBytes: number,
): Promise<{ writeNew: number; read: number }> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `baseline-${process.pid}.bin`);
  const block = randomBytes(4 * MiB);
  try {
    let start = process.hrtime.bigint();
    const handle = await open(file, 'w');
    for (let written = 0; written < totalBytes; written += block.length)
      await handle.write(block, 0, block.length, written);
    await handle.sync();
    await handle.close();
    const writeNew = totalBytes / seconds(start);
    start = process.hrtime.bigint();
    const reader = await open(file, 'r');
    const into = Buffer.allocUnsafe(4 * MiB);
    for (let offset = 0; offset < totalBytes; offset += into.length)
      await reader.read(into, 0, into.length, offset);
    await reader.close();
    return { writeNew, read: totalBytes / seconds(start) };
  } finally {
    rmSync(file, { force: true });
  }
}

/** Local file system metadata: creates/s, stats/s, readdir+stat entries/s, unlinks/s at the given concurrency. */
export async function localMetadata(
  dir: string,
  files: number,
  concurrency: number,
): Promise<{ createsPerSec: number; statsPerSec: number; listPerSec: number; unlinksPerSec: number }> {
  const root = join(dir, `meta-${process.pid}`);
  await mkdir(root, { recursive: true });
  const gate = new Semaphore(concurrency);
  const names = Array.from({ length: files }, (_, i) => join(root, `f${i}`));
  const timed = async (op: (name: string) => Promise<unknown>) => {
    const start = process.hrtime.bigint();
    await Promise.all(names.map((name) => gate.run(() => op(name))));
    return files / seconds(start);
  };
  try {
    const createsPerSec = await timed((name) => writeFile(name, ''));
    const statsPerSec = await timed((name) => stat(name));
    const start = process.hrtime.bigint();
    const entries = await readdir(root);
    await Promise.all(entries.map((entry) => gate.run(() => stat(join(root, entry)))));
    const listPerSec = entries.length / seconds(start);
    const unlinksPerSec = await timed((name) => unlink(name));
    return { createsPerSec, statsPerSec, listPerSec, unlinksPerSec };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Bytes per second of Buffer.copy between two large buffers (the memory floor for erasure coding). */
export function memoryCopy(totalBytes: number): number {
  const source = randomBytes(16 * MiB);
  const target = Buffer.allocUnsafe(16 * MiB);
  const start = process.hrtime.bigint();
  for (let copied = 0; copied < totalBytes; copied += source.length) source.copy(target);
  return totalBytes / seconds(start);
}
