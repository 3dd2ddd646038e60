// The cluster's health and its reasons, as one pure function of what the
// admin API answers (the map's OSTs, /api/pgs, the slow OSTs, queued repairs).
// `stripefs health` calls it with the answers it fetched, the dashboard's
// sampler with the same answers taken in-process, so the two never disagree.

/** PG states in which every copy is where it is placed. */
export const SETTLED_STATES: ReadonlySet<string> = new Set(['clean', 'scrubbing']);

export interface ScrubTaskBrief {
  id: number;
  errorsFound: number;
  errorsFixed: number;
}

export interface WeightPhaseAnswer {
  ostId: number;
  fromWeight: number;
  targetWeight: number;
  currentWeight: number;
  stepsDone: number;
  stepsTotal: number;
  trigger: string;
  waitingForClean: boolean;
}

export interface RecoveryAnswer {
  bytesLeft: number;
  rateBytesPerSec: number;
  etaSeconds: number | null;
  activePgs: number;
}

/** What GET /api/pgs answers, in the parts health needs. */
export interface PgSummaryAnswer<Scrub = unknown> {
  epoch: number;
  total: number;
  byState: Record<string, number>;
  nonClean?: { pool: string; pg: number; state: string; osts: number[] }[];
  recovery?: RecoveryAnswer;
  scrub?: { activePgs: number; running: Scrub[]; last: (Scrub & ScrubTaskBrief) | null };
  phases?: WeightPhaseAnswer[];
}

/** An OST as the map says (gRPC GetMap or GET /api/cluster). */
export interface MapOstAnswer {
  id: number;
  host: string;
  state?: { up?: boolean; in?: boolean } | null;
}

export interface HealthInputs<Scrub = unknown> {
  epoch: number;
  osts: readonly MapOstAnswer[];
  pgs: PgSummaryAnswer<Scrub>;
  slowOsts: { ostId: number; reason: string }[];
  repairsQueued: number;
  /** PG copies whose missed writes passed mds.missedWritesPerPgMax and await a full backfill (GET /api/recovery). */
  missedWrites?: { awaitingBackfill: number; perPgMax: number };
  /** Not OK until this many OSTs are up and in (a cluster still registering). */
  expectOsts?: number;
}

export interface HealthReport<Scrub = unknown> {
  ok: boolean;
  epoch: number;
  osts: { total: number; up: number; in: number; down: string[]; out: string[] };
  pgs: { total: number; byState: Record<string, number>; recovery?: RecoveryAnswer };
  scrub?: PgSummaryAnswer<Scrub>['scrub'];
  phases?: WeightPhaseAnswer[];
  slowOsts: { ostId: number; reason: string }[];
  problems: string[];
}

export function healthReport<Scrub>(inputs: HealthInputs<Scrub>): HealthReport<Scrub> {
  const { osts, pgs, slowOsts } = inputs;
  const down = osts.filter((o) => !o.state?.up).map((o) => `ost${o.id} (${o.host})`);
  const out = osts.filter((o) => !o.state?.in).map((o) => `ost${o.id} (${o.host})`);
  const problems: string[] = [];
  if (osts.length === 0) problems.push('no OSTs registered yet');
  const upAndIn = osts.filter((o) => o.state?.up && o.state?.in).length;
  if (inputs.expectOsts !== undefined && upAndIn < inputs.expectOsts)
    problems.push(`${upAndIn} of the ${inputs.expectOsts} OSTs expected are up and in`);
  if (down.length > 0) problems.push(`${down.length} OSTs down: ${down.join(', ')}`);
  if (out.length > 0) problems.push(`${out.length} OSTs out: ${out.join(', ')}`);
  for (const [state, count] of Object.entries(pgs.byState)) {
    if (!SETTLED_STATES.has(state) && count > 0) problems.push(`${count} PGs ${state}`);
  }
  const last = pgs.scrub?.last;
  if (last && last.errorsFound > last.errorsFixed)
    problems.push(`scrub #${last.id} left ${last.errorsFound - last.errorsFixed} errors unfixed`);
  for (const slow of slowOsts) problems.push(`ost${slow.ostId} slow: ${slow.reason}`);
  if (inputs.repairsQueued > 0)
    problems.push(
      `${inputs.repairsQueued} copies await repair (they missed writes or read bad; the MDS rewrites each once its OST is up, see GET /api/recovery)`,
    );
  const backfills = inputs.missedWrites?.awaitingBackfill ?? 0;
  if (backfills > 0)
    problems.push(
      `${backfills} PG copies missed more than ${inputs.missedWrites?.perPgMax} writes and await a full backfill (their OSTs refuse reads of them meanwhile)`,
    );
  return {
    ok: problems.length === 0,
    epoch: inputs.epoch,
    osts: { total: osts.length, up: osts.length - down.length, in: osts.length - out.length, down, out },
    pgs: { total: pgs.total, byState: pgs.byState, ...(pgs.recovery ? { recovery: pgs.recovery } : {}) },
    ...(pgs.scrub ? { scrub: pgs.scrub } : {}),
    ...(pgs.phases ? { phases: pgs.phases } : {}),
    slowOsts,
    problems,
  };
}
