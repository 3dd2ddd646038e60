// Seeded randomness and an injectable clock. Production code that needs
// randomness (jitter, fault knobs) takes a Random; tests seed it and print
// the seed. STRIPEFS_SEED replays a failing run.

export interface Random {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, bound). */
  int(bound: number): number;
  readonly seed: number;
}

/** mulberry32: small, fast, good enough for jitter and fault decisions (not crypto). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed: seed >>> 0,
    next,
    int: (bound: number) => Math.floor(next() * bound),
  };
}

/** The seed for this run: STRIPEFS_SEED if set, else derived from the time (and printed by the caller). */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.STRIPEFS_SEED;
  if (raw !== undefined && /^\d+$/.test(raw)) return Number(raw) >>> 0;
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

export interface Clock {
  nowMs(): number;
  monotonicMs(): number;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
};
