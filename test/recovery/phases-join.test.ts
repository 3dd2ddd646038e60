// A new OST's phase-in while the map that adds it is being committed. The
// phase is made in the map change itself (WeightPhases' adjust), before the
// map is persisted and current; a tick in that window used to take the OST's
// absence from the current map for a removed OST and drop its phase, so the
// OST stayed at its first step for good (recovery/phases.test.ts saw one of
// two new OSTs without a phase under load). The cluster service and recovery
// around WeightPhases are stand-ins here: only the phase rules are under test.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../common/random.js';
import type { ClusterService } from '../../mds/cluster/service.js';
import { type ClusterState, registerOss, removeOsts } from '../../mds/cluster/state.js';
import type { GroupCommitter } from '../../mds/commit.js';
import type { BatchOp, MdsDb } from '../../mds/db.js';
import { WeightPhases } from '../../mds/recovery/phases.js';
import type { RecoveryService } from '../../mds/recovery/service.js';
import { ossRegistration, pureCluster } from '../helpers/cluster-state.js';

const STEPS = 3;

function harness() {
  let current: ClusterState = pureCluster(3, [
    { rule: { kind: 'replicated', size: 3, failureDomain: 'host' }, pgCount: 8 },
  ]);
  const committed: BatchOp[][] = [];
  const cluster = {
    get state() {
      return current;
    },
    beforeCommit: undefined as ((prev: ClusterState, next: ClusterState) => BatchOp[]) | undefined,
    adjust: undefined as ((prev: ClusterState, next: ClusterState) => ClusterState) | undefined,
    async admin(): Promise<number> {
      throw new Error('no reweight expected in this test');
    },
  };
  const recovery = {
    holders: new Map(),
    active: new Map(),
    activePgs: () => new Set<string>(),
    progress: () => ({
      activePgs: 0,
      pendingPgs: 0,
      bytesLeft: 0,
      unestimatedTargets: 0,
      rateBytesPerSec: 0,
      etaSeconds: 0,
    }),
    repairs: { pgs: () => ({ queued: new Set<string>(), active: new Set<string>() }) },
  };
  const db = { iterator: () => ({ all: async () => [] }) };
  const committer = {
    submit: async (ops: BatchOp[]) => {
      committed.push(ops);
    },
  };
  const logger = { info() {}, warn() {} };
  const phases = new WeightPhases(
    db as unknown as MdsDb,
    committer as unknown as GroupCommitter,
    cluster as unknown as ClusterService,
    recovery as unknown as RecoveryService,
    systemClock,
    logger as never,
    STEPS,
  );
  return {
    phases,
    cluster,
    committed,
    setCurrent(state: ClusterState) {
      current = state;
    },
  };
}

describe('a new OST phased in while its map is committed', () => {
  it('keeps its phase through a tick that runs before the map is current', async () => {
    const h = harness();
    await h.phases.init();
    const prev = h.cluster.state;
    const edited = registerOss(prev, ossRegistration(9, 0)).state;
    // The map change as ClusterService.change makes it: adjusted, then persisted, then current.
    const next = h.cluster.adjust!(prev, edited);
    const fresh = next.map.osts.filter((o) => !prev.map.osts.some((p) => p.id === o.id));
    expect(fresh.map((o) => o.weight)).toEqual([1 / STEPS, 1 / STEPS]);
    expect(h.phases.view().map((p) => p.ostId)).toEqual(fresh.map((o) => o.id));

    await h.phases.tick(); // while persisting: the current map has no such OSTs yet
    expect(h.phases.view().map((p) => p.ostId)).toEqual(fresh.map((o) => o.id));
    expect(h.committed.flat().filter((op) => op.type === 'del')).toEqual([]);

    h.setCurrent(next);
    expect(h.phases.view().map((p) => [p.ostId, p.currentWeight, p.targetWeight])).toEqual(
      fresh.map((o) => [o.id, 1 / STEPS, 1]),
    );
  });

  it('still drops the phase of an OST the current map no longer has', async () => {
    const h = harness();
    await h.phases.init();
    const prev = h.cluster.state;
    const edited = registerOss(prev, ossRegistration(9, 0, ['ost0'])).state;
    const next = h.cluster.adjust!(prev, edited);
    h.setCurrent(next);
    const id = next.map.osts.at(-1)!.id;
    // The OST leaves the map in a later epoch (ost rm): its phase has nothing left to step.
    h.setCurrent(removeOsts(next, [id]));
    await h.phases.tick();
    expect(h.phases.view()).toEqual([]);
  });
});
