// After the cluster is clean: a deep scrub (compare every copy, recompute ec
// parity) without repair, so that a copy that differs from its peers is seen
// even when the reads went to the good ones. Its findings fail the run.
import type { Cluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';

interface ScrubAnswer {
  id: number;
  state: 'running' | 'done';
  pgsTotal: number;
  pgsDone: number;
  pgsSkipped: number;
  pgsFailed: number;
  objectsScanned: number;
  errorsFound: number;
  findings: { pool: number; pg: number; objectId: string; ostId: number; problem: string; detail: string }[];
  skipped: { pool: number; pg: number; reason: string }[];
}

/** How long the scrub of a chaos run's few MiB may take before the run gives up. */
const SCRUB_TIMEOUT_MS = 600_000;

/** Scrubs every PG (no repair); returns one line per finding and per PG it could not scrub. */
export async function scrubAll(cluster: Cluster): Promise<{ objectsScanned: number; problems: string[] }> {
  const started = await cluster.admin<ScrubAnswer>('/api/scrub', { method: 'POST', body: { repair: false } });
  const task = await eventually(
    async () => {
      const t = await cluster.admin<ScrubAnswer>(`/api/scrub/${started.id}`);
      if (t.state === 'done') return t;
      throw new Error(`scrub ${t.id}: ${t.pgsDone + t.pgsSkipped + t.pgsFailed}/${t.pgsTotal} PGs`);
    },
    { timeoutMs: SCRUB_TIMEOUT_MS, what: 'the deep scrub to finish', intervalMs: 500 },
  );
  const problems = [
    ...task.findings.map(
      (f) => `pg ${f.pool}/${f.pg} ${f.objectId} on ost${f.ostId}: ${f.problem} (${f.detail})`,
    ),
    ...task.skipped.map((s) => `pg ${s.pool}/${s.pg} not scrubbed: ${s.reason}`),
    ...(task.pgsFailed > 0 ? [`${task.pgsFailed} PGs failed to scrub`] : []),
  ];
  return { objectsScanned: task.objectsScanned, problems };
}
