// Deep scrub's durable state (keys in keys.ts): each PG's last deep scrub,
// when background scheduling began, and every kept task as a header plus one
// record per PG it finished. A PG's record and its stamp are written in one
// batch as the PG finishes, so an MDS killed mid-scrub restarts with the PGs
// already scrubbed, what they found, and the PGs still to do. Values are JSON
// records; this module turns them back into tasks.
import type { BatchOp, MdsDb } from '../db.js';
import { KEYS, numbersOfRecoveryKey } from '../keys.js';
import { pgKey } from './holders.js';
import type { ScrubTask, ScrubTaskFinding } from './scrub-service.js';

/** A PG's last completed deep scrub. */
export interface ScrubStamp {
  lastDeepScrubMs: number;
  taskId: number;
  errorsFound: number;
  errorsFixed: number;
}

/** What a task's header keeps: everything but the counters, which its PG records add up to. */
export interface ScrubTaskHeader {
  id: number;
  scope: string;
  trigger: ScrubTask['trigger'];
  repair: boolean;
  state: ScrubTask['state'];
  startedAtMs: number;
  finishedAtMs: number | null;
  /** Times an MDS restart found the task running and resumed it. */
  resumes: number;
  /** The task's PGs as [pool, pg], in the order they are scrubbed. */
  pgs: [number, number][];
}

/** One finished PG of a task. */
export interface ScrubPgResult {
  outcome: 'done' | 'skipped' | 'failed';
  reason?: string;
  objectsScanned: number;
  bytesScanned: number;
  errorsFound: number;
  errorsFixed: number;
  objectsBusy: number;
  findings: ScrubTaskFinding[];
}

export interface LoadedScrubState {
  stamps: Map<string, ScrubStamp>;
  originMs: number | undefined;
  tasks: { header: ScrubTaskHeader; results: Map<string, ScrubPgResult> }[];
}

export async function loadScrubState(db: MdsDb): Promise<LoadedScrubState> {
  const stamps = new Map<string, ScrubStamp>();
  for (const [key, value] of await db.iterator(KEYS.scrubStampRange).all()) {
    const [poolId, pg] = numbersOfRecoveryKey(key);
    stamps.set(pgKey(poolId!, pg!), value as ScrubStamp);
  }
  const originMs = (await db.get(KEYS.scrubOrigin)) as number | undefined;
  type Entry = { header?: ScrubTaskHeader; results: Map<string, ScrubPgResult> };
  const byId = new Map<number, Entry>();
  for (const [key, value] of await db.iterator(KEYS.scrubTaskRange).all()) {
    const [taskId, poolId, pg] = numbersOfRecoveryKey(key);
    const entry: Entry = byId.get(taskId!) ?? { results: new Map() };
    byId.set(taskId!, entry);
    if (poolId === undefined) entry.header = value as ScrubTaskHeader;
    else entry.results.set(pgKey(poolId, pg!), value as ScrubPgResult);
  }
  const tasks = [...byId.values()]
    .flatMap((t) => (t.header ? [{ header: t.header, results: t.results }] : []))
    .sort((a, b) => a.header.id - b.header.id);
  return { stamps, originMs, tasks };
}

/** The ops that drop a task's records (it fell off the kept list). */
export function forgetTaskOps(header: ScrubTaskHeader): BatchOp[] {
  return [
    { type: 'del', key: KEYS.scrubTask(header.id) },
    ...header.pgs.map(
      ([poolId, pg]): BatchOp => ({ type: 'del', key: KEYS.scrubTaskPg(header.id, poolId, pg) }),
    ),
  ];
}

/** A task as the API shows it, from its header and the results of its finished PGs. */
export function taskOf(
  header: ScrubTaskHeader,
  results: ReadonlyMap<string, ScrubPgResult>,
  limits: { findingsMax: number; skippedMax: number },
): ScrubTask {
  const task: ScrubTask = {
    id: header.id,
    scope: header.scope,
    trigger: header.trigger,
    repair: header.repair,
    state: header.state,
    startedAtMs: header.startedAtMs,
    finishedAtMs: header.finishedAtMs,
    resumes: header.resumes,
    pgsTotal: header.pgs.length,
    pgsDone: 0,
    pgsSkipped: 0,
    pgsFailed: 0,
    objectsScanned: 0,
    bytesScanned: 0,
    errorsFound: 0,
    errorsFixed: 0,
    objectsBusy: 0,
    findings: [],
    skipped: [],
  };
  for (const [poolId, pg] of header.pgs) {
    const result = results.get(pgKey(poolId, pg));
    if (result) addResult(task, poolId, pg, result, limits);
  }
  return task;
}

/** Adds one finished PG to a task's counters and lists (bounded as the task's lists are). */
export function addResult(
  task: ScrubTask,
  poolId: number,
  pg: number,
  result: ScrubPgResult,
  limits: { findingsMax: number; skippedMax: number },
): void {
  if (result.outcome === 'done') task.pgsDone++;
  else if (result.outcome === 'skipped') task.pgsSkipped++;
  else task.pgsFailed++;
  task.objectsScanned += result.objectsScanned;
  task.bytesScanned += result.bytesScanned;
  task.errorsFound += result.errorsFound;
  task.errorsFixed += result.errorsFixed;
  task.objectsBusy += result.objectsBusy;
  for (const f of result.findings) if (task.findings.length < limits.findingsMax) task.findings.push(f);
  if (result.reason !== undefined && task.skipped.length < limits.skippedMax)
    task.skipped.push({ pool: poolId, pg, reason: result.reason });
}
