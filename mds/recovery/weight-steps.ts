// Phased weight changes, the pure part. A phase moves an OST's weight towards
// a target in steps; the driver (phases.ts) takes the next step only when the
// cluster is clean again, so at most one step's worth of data is in motion.

export interface WeightPhase {
  ostId: number;
  fromWeight: number;
  targetWeight: number;
  stepWeight: number;
  /** Steps applied so far. */
  stepsDone: number;
  trigger: 'admin' | 'new-ost';
  startedAtMs: number;
}

/** Weights closer than this are equal (weights are TiB; this is about a byte). */
const WEIGHT_EPSILON = 1e-12;

export function stepsTotal(phase: Pick<WeightPhase, 'fromWeight' | 'targetWeight' | 'stepWeight'>): number {
  return Math.max(1, Math.ceil(Math.abs(phase.targetWeight - phase.fromWeight) / phase.stepWeight - 1e-9));
}

/** The weight after the next step from `current`, or null when the target is reached. */
export function nextWeight(phase: WeightPhase, current: number): number | null {
  const gap = phase.targetWeight - current;
  if (Math.abs(gap) <= WEIGHT_EPSILON) return null;
  if (Math.abs(gap) <= phase.stepWeight + WEIGHT_EPSILON) return phase.targetWeight;
  return current + Math.sign(gap) * phase.stepWeight;
}

/** The first weight of a new OST phased in over `steps` steps. */
export function firstWeightOfNewOst(targetWeight: number, steps: number): number {
  return steps > 1 ? targetWeight / steps : targetWeight;
}
