/**
 * Seed for every randomised placement test: STRIPEFS_SEED when set, else a fresh one.
 * It is printed so a failing run can be replayed: STRIPEFS_SEED=<n> npx vitest run test/placement
 */
export function testSeed(label: string): number {
  const fromEnv = process.env.STRIPEFS_SEED;
  const seed =
    fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) | 0 : (Date.now() ^ (process.pid << 8)) | 0;
  console.log(`[${label}] STRIPEFS_SEED=${seed}`);
  return seed;
}
