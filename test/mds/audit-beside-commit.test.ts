// A change's audit line is written beside its commit, not after it: the MDS's
// real handlers, namespace, group commit, LevelDB and audit log in this
// process, with the database's synced batches held at a latch (the one
// thing not under test: how long the disk takes). While a Mkdir's commit is
// held its audit line is already on disk, and the call is not answered until
// the commit is done too; CreateMany and CommitMany, whose items are
// mutations of their own (CommitMany's after checks that await), do the same.
// Without the line begun at the commit's hand-off (Namespace.inScope) the line
// waits for the commit and these waits time out.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logging.js';
import { systemClock } from '../../common/random.js';
import { Auditor } from '../../mds/audit/events.js';
import { AuditLog } from '../../mds/audit/log.js';
import { Gate } from '../../mds/auth/access.js';
import { GroupCommitter } from '../../mds/commit.js';
import { type MdsDb, openDb } from '../../mds/db.js';
import { mdsHandlers } from '../../mds/grpc-service.js';
import { configuredDefault } from '../../mds/layout.js';
import { createMdsMetrics } from '../../mds/metrics.js';
import { Namespace } from '../../mds/namespace.js';
import { eventually } from '../helpers/eventually.js';

type Handler = (call: unknown, callback: (err: unknown, response: unknown) => void) => void;

describe('audit lines beside the commit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-audit-beside-'));
  let db: MdsDb;
  let log: AuditLog;
  let handlers: Record<string, Handler>;
  let release: (() => void) | undefined;
  let closeLatch: () => void = () => undefined;
  let held = 0;

  beforeAll(async () => {
    db = await openDb(join(dir, 'db'));
    // Synced batches wait at the latch while it is closed (release opens it for the ones waiting).
    const batch = db.batch.bind(db) as (ops: unknown, options: unknown) => Promise<void>;
    let latch: Promise<void> | undefined;
    (db as unknown as { batch: unknown }).batch = async (ops: unknown, options: { sync?: boolean }) => {
      if (options?.sync && latch) {
        held++;
        await latch;
      }
      return batch(ops, options);
    };
    const committer = new GroupCommitter(db, (err) => {
      throw err;
    });
    // raid0:1 files need one OST in the map and a pool (the map and the pool are not under test).
    const map = { osts: [{ state: { in: true }, weight: 1 }], types: ['ost'] };
    const ns = new Namespace(db, committer, systemClock, configuredDefault('raid0:1'), {
      epoch: () => 1,
      map: () => map as never,
      ensurePool: async () => 1,
    });
    await ns.init();
    log = new AuditLog({ dir: join(dir, 'audit'), fileBytesMax: 1 << 20, files: 1, deniedPerSec: 10 });
    const gate = new Gate(undefined, ns, new Auditor(log, 1));
    const metrics = createMdsMetrics(() => committer.writes, ns.dom);
    handlers = mdsHandlers(ns, {} as never, metrics, createLogger('mds', 'silent'), undefined, gate) as never;
    closeLatch = () => {
      latch = new Promise<void>((resolve) => {
        release = () => {
          latch = undefined;
          resolve();
        };
      });
    };
  });
  afterAll(async () => {
    release?.();
    await log.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lineOnDisk = (text: string) => readFileSync(log.path(0), 'utf8').includes(text);
  function send(method: string, request: Record<string, unknown>) {
    const state = { answered: false, error: undefined as unknown, response: undefined as unknown };
    const call = { request, metadata: new grpc.Metadata(), getPeer: () => 'ipv4:127.0.0.1:1' };
    handlers[method]!(call, (err, response) => {
      state.answered = true;
      state.error = err;
      state.response = response;
    });
    return state;
  }

  async function heldUntilLine(method: string, request: Record<string, unknown>, text: string) {
    const heldBefore = held;
    closeLatch();
    const call = send(method, request);
    await eventually(
      async () => {
        if (held > heldBefore && lineOnDisk(text)) return true;
        throw new Error(`held ${held - heldBefore}, line on disk ${lineOnDisk(text)}`);
      },
      { timeoutMs: 10_000, what: `the ${method} line on disk while its commit is held` },
    );
    expect(call.answered).toBe(false);
    release!();
    await eventually(
      async () => {
        if (call.answered) return true;
        throw new Error('not answered');
      },
      { timeoutMs: 10_000, what: `${method} answered once its commit is done` },
    );
    expect(call.error).toBeNull();
    return call.response as Record<string, unknown>;
  }

  it('writes a Mkdir line while its commit is held, and answers after both', async () => {
    await heldUntilLine('Mkdir', { path: '/held', parents: false }, '"/held"');
  });

  it('writes the line of a CreateMany and of a CommitMany while their commits are held', async () => {
    await heldUntilLine('Mkdir', { path: '/d', parents: false }, '"/d"');
    const created = await heldUntilLine(
      'CreateMany',
      {
        items: [0, 1].map((i) => ({
          path: `/d/f${i}`,
          mode: 0o644,
          uid: 0,
          gid: 0,
          withData: false,
          data: Buffer.alloc(0),
        })),
      },
      '"/d/f1"',
    );
    const inodes = (created.results as { attr: { inode: number } }[]).map((r) => Number(r.attr.inode));
    await heldUntilLine(
      'CommitMany',
      {
        items: inodes.map((inode) => ({
          inode,
          size: 0,
          mtimeMs: 0,
          growOnly: false,
          domData: Buffer.alloc(0),
          domOffset: 0,
        })),
      },
      '"CommitMany"',
    );
  });
});
