// Carries out a chaos schedule on a real cluster: each track's episodes in
// order, each applied at its planned time (or at once when the track runs
// late) and undone after its duration; every start and end goes into the
// history. `healAll` undoes whatever is still applied when the run stops.
import { type Cluster, setOstFaults } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import type { NetNamespace } from '../helpers/netns.js';
import type { History } from './history.js';
import { describeEpisode, type Episode, type FaultAction } from './schedule.js';

/** How long an undo (a revive, an `in`, an MDS start) may take before the run gives up on it. */
const UNDO_TIMEOUT_MS = 300_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class FaultRunner {
  /** Undo steps of the episodes applied and not yet undone. */
  private readonly undos = new Map<Episode, () => Promise<void>>();
  private stopped = false;
  applied = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly history: History,
    private readonly net: NetNamespace | undefined,
    private readonly log: (line: string) => void,
  ) {}

  /** Runs every episode of `schedule` from `startedAtMs` (performance.now()); resolves when all ended or stop() was called. */
  async run(schedule: Episode[], startedAtMs: number): Promise<void> {
    const tracks = new Map<string, Episode[]>();
    for (const e of schedule) tracks.set(e.track, [...(tracks.get(e.track) ?? []), e]);
    await Promise.all([...tracks.values()].map((episodes) => this.runTrack(episodes, startedAtMs)));
  }

  stop(): void {
    this.stopped = true;
  }

  private async runTrack(episodes: Episode[], startedAtMs: number): Promise<void> {
    for (const e of episodes) {
      await this.sleepUntil(startedAtMs + e.startMs);
      if (this.stopped) return;
      await this.apply(e);
      await this.sleepUntil(performance.now() + e.durationMs);
      await this.undo(e);
    }
  }

  private async sleepUntil(atMs: number): Promise<void> {
    while (!this.stopped && performance.now() < atMs) await sleep(Math.min(250, atMs - performance.now()));
  }

  private async apply(e: Episode): Promise<void> {
    const what = describeEpisode(e);
    this.history.add({ type: 'fault', what: `start ${what}` });
    this.log(`fault start ${what}`);
    try {
      this.undos.set(e, await this.start(e.action));
      this.applied++;
    } catch (err) {
      this.log(`fault ${what} not applied: ${(err as Error).message}`);
      this.history.add({ type: 'fault', what: `not applied ${what}: ${(err as Error).message}` });
    }
  }

  private async undo(e: Episode): Promise<void> {
    const undo = this.undos.get(e);
    if (!undo) return;
    this.undos.delete(e);
    await undo();
    this.history.add({ type: 'fault', what: `end ${describeEpisode(e)}` });
    this.log(`fault end ${describeEpisode(e)}`);
  }

  /** Undoes every applied episode (the run is over). */
  async healAll(): Promise<void> {
    this.stop();
    for (const e of [...this.undos.keys()]) await this.undo(e);
  }

  /** Applies one fault; returns how to undo it. */
  private async start(action: FaultAction): Promise<() => Promise<void>> {
    const { cluster } = this;
    switch (action.kind) {
      case 'kill-oss':
        await cluster.killOss(action.oss);
        return () => cluster.reviveOss(action.oss);
      case 'pause-oss': {
        const child = cluster.ossById(action.oss).child;
        child.kill('SIGSTOP');
        return async () => {
          child.kill('SIGCONT');
        };
      }
      case 'partition': {
        const net = this.net as NetNamespace;
        net.cut();
        return async () => net.heal();
      }
      case 'crash-site':
        await setOstFaults(cluster, action.ost, { crashBeforeCommitRate: 0.05 });
        return () => this.endCrashSite(action.oss, action.ost);
      case 'kill-mds':
        await cluster.killMds();
        return () => cluster.startMds();
      case 'out':
        await this.admin(`/api/osts/${action.ost}/out`);
        return () => this.admin(`/api/osts/${action.ost}/in`);
      case 'reweight': {
        const weight = await this.weightOf(action.ost);
        await this.admin(`/api/osts/${action.ost}/reweight`, { weight: weight * action.fraction });
        return () => this.admin(`/api/osts/${action.ost}/reweight`, { weight });
      }
      case 'knobs':
        await setOstFaults(cluster, action.ost, action.knobs);
        return () => this.clearKnobs(action.ost);
    }
  }

  private exited(oss: string): boolean {
    const child = this.cluster.ossById(oss).child;
    return child.exitCode !== null || child.signalCode !== null;
  }

  /** The crash site fired (the OSS is gone: revive it) or not (clear the knob). */
  private async endCrashSite(oss: string, ost: number): Promise<void> {
    if (!this.exited(oss)) {
      try {
        await setOstFaults(this.cluster, ost, null);
        return;
      } catch (err) {
        // It may have died between the check and the call: then it is revived below.
        if (!this.exited(oss)) throw err;
      }
    }
    this.history.add({ type: 'fault', what: `crash site killed ${oss}` });
    await this.cluster.reviveOss(oss);
  }

  /** Clears an OST's knobs; its OSS may be down for a host episode (a revived OSS starts without knobs). */
  private async clearKnobs(ost: number): Promise<void> {
    const oss = this.cluster.ossOfOst(ost).id;
    await eventually(
      async () => {
        if (this.exited(oss)) return true;
        await setOstFaults(this.cluster, ost, null);
        return true;
      },
      { timeoutMs: UNDO_TIMEOUT_MS, what: `the fault knobs of OST ${ost} cleared`, intervalMs: 500 },
    );
  }

  /** An admin call to the MDS, retried while the MDS is down (the mds track may have killed it). */
  private async admin(path: string, body: unknown = {}): Promise<void> {
    await eventually(
      async () => {
        await this.cluster.admin(path, { method: 'POST', body });
        return true;
      },
      { timeoutMs: UNDO_TIMEOUT_MS, what: `POST ${path} answered`, intervalMs: 500 },
    );
  }

  private async weightOf(ost: number): Promise<number> {
    return eventually(
      async () => {
        const answer = await this.cluster.admin<{ map: { osts?: { id?: number; weight?: number }[] } }>(
          '/api/cluster',
        );
        const weight = answer.map.osts?.find((o) => o.id === ost)?.weight;
        if (typeof weight !== 'number') throw new Error(`OST ${ost} has no weight in /api/cluster`);
        return weight;
      },
      { timeoutMs: UNDO_TIMEOUT_MS, what: `the weight of OST ${ost}`, intervalMs: 500 },
    );
  }
}
