// The audit log's file handling on a real folder with a test clock: lines are
// JSON and on disk when append resolves, in append order across groups, the file rotates at its size keeping
// the configured number of old files, and refusals from one address beyond
// its budget are counted in the next line that gets through.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Auditor } from '../../mds/audit/events.js';
import { AuditLog } from '../../mds/audit/log.js';

describe('audit log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-audit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const record = (n: number, result = 'OK', address = '10.0.0.1') => ({
    identity: 'alice',
    client: 'c1',
    address,
    op: 'Mkdir',
    paths: [`/d${n}`],
    result,
  });

  it('rotates by size and keeps the configured files', async () => {
    const log = new AuditLog({ dir: join(dir, 'rot'), fileBytesMax: 4096, files: 2, deniedPerSec: 10 });
    for (let n = 0; n < 200; n++) await log.append(record(n));
    const current = readFileSync(log.path(0), 'utf8').trim().split('\n');
    expect(current.length).toBeGreaterThan(0);
    expect(JSON.parse(current.at(-1) as string)).toMatchObject({
      op: 'Mkdir',
      paths: ['/d199'],
      result: 'OK',
    });
    for (const index of [0, 1, 2]) expect(readFileSync(log.path(index)).length).toBeLessThanOrEqual(4096);
    const kept = [0, 1, 2].flatMap((i) => readFileSync(log.path(i), 'utf8').trim().split('\n'));
    // The newest records are all there, in order across the files.
    const numbers = kept.map((line) => Number((JSON.parse(line) as { paths: string[] }).paths[0]?.slice(2)));
    expect(numbers.sort((a, b) => a - b).at(-1)).toBe(199);
    expect(() => readFileSync(log.path(3))).toThrow();
    await log.close();
  });

  it('writes groups one at a time, in append order, each line on disk when its append resolves', async () => {
    const log = new AuditLog({ dir: join(dir, 'groups'), fileBytesMax: 1 << 20, files: 1, deniedPerSec: 10 });
    const onDisk = (n: number) => readFileSync(log.path(0), 'utf8').includes(`"/d${n}"`);
    const appends: Promise<void>[] = [];
    for (let n = 0; n < 60; n++) {
      // Lines arrive over several turns of the event loop, some while a group is being written.
      if (n % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
      appends.push(log.append(record(n)).then(() => expect(onDisk(n), `line ${n}`).toBe(true)));
    }
    await Promise.all(appends);
    const numbers = readFileSync(log.path(0), 'utf8')
      .trim()
      .split('\n')
      .map((line) => Number((JSON.parse(line) as { paths: string[] }).paths[0]?.slice(2)));
    expect(numbers).toEqual(Array.from({ length: 60 }, (_, n) => n));
    expect(log.written).toBe(60);
    await log.close();
  });

  it('answers a change once its line is on disk, an open or a listing at once (its line follows)', async () => {
    // A log whose lines never reach the disk: what waits for them never resolves.
    const appended: string[] = [];
    const stuck = {
      append: (r: { op: string }) => {
        appended.push(r.op);
        return new Promise<void>(() => undefined);
      },
    };
    const auditor = new Auditor(stuck as unknown as AuditLog, 1);
    const call = { metadata: { get: () => [] }, getPeer: () => 'ipv4:10.0.0.1:1' } as never;
    const settled = async (p: Promise<void>) =>
      Promise.race([p.then(() => 'resolved'), new Promise((r) => setImmediate(() => r('pending')))]);
    for (const op of ['Open', 'OpenMany', 'Readdir'])
      expect(await settled(auditor.done(undefined, call, op, { path: '/d' }, 'OK')), op).toBe('resolved');
    for (const op of ['Mkdir', 'Create', 'CommitMany', 'GetTickets'])
      expect(await settled(auditor.done(undefined, call, op, { path: '/d' }, 'OK')), op).toBe('pending');
    expect(appended).toEqual(['Open', 'OpenMany', 'Readdir', 'Mkdir', 'Create', 'CommitMany', 'GetTickets']);
  });

  it('rate-limits refusals per address and counts what it dropped', async () => {
    let nowMs = 1_000_000;
    const log = new AuditLog({
      dir: join(dir, 'rate'),
      fileBytesMax: 1 << 20,
      files: 1,
      deniedPerSec: 2,
      nowMs: () => nowMs,
    });
    for (let n = 0; n < 100; n++) await log.append(record(n, 'AUTH_INVALID'));
    await log.append(record(0, 'AUTH_INVALID', '10.0.0.2')); // another address has its own budget
    expect(log.dropped).toBe(80); // a burst of 10 x 2 went through
    nowMs += 1_000; // two more tokens
    await log.append(record(100, 'AUTH_INVALID'));
    await log.append(record(101, 'OK')); // changes are never dropped
    const lines = readFileSync(log.path(0), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(23);
    expect(lines.filter((l) => l.address === '10.0.0.2')).toHaveLength(1);
    expect(lines.find((l) => l.paths[0] === '/d100')?.suppressed).toBe(80);
    await log.close();
  });
});
