// The auth bench end to end with small sizes: two real clusters, one with auth
// (the bench checks it refuses an unsigned client) and one without, every
// workload's rate and the CPU of the client, the MDS and the OSSs beside the
// same-run figure without auth; bytes read back equal and every stat's size
// right (the bench throws otherwise). Counts and shape only, never speed.
import { describe, expect, it } from 'vitest';
import { AUTH_WORKLOADS, runAuthBench } from '../../bench/auth.js';

describe('auth bench', () => {
  it('runs every workload with auth on and off and reports rates and CPU per unit of each process', async () => {
    const results = await runAuthBench({ quick: true, sizeBytes: 6 * 1024 * 1024 + 5, files: 20, rounds: 2 });
    const cpu = ['.cpu-client', '.cpu-mds', '.cpu-oss', '.cpu'];
    expect(results.map((r) => r.id)).toEqual([
      ...AUTH_WORKLOADS.flatMap((w) => [`auth.${w}`, ...cpu.map((c) => `auth.${w}${c}`)]),
      ...['client', 'mds', 'oss'].map((role) => `auth.idle.cpu-${role}`),
    ]);
    const unitOf = (id: string) => {
      const seq = id.startsWith('auth.seq-');
      if (id.startsWith('auth.idle.')) return 'CPU ms/s';
      if (!id.includes('.cpu')) return seq ? 'GB/s' : 'ops/s';
      return seq ? 'CPU ms/GiB' : 'CPU us/op';
    };
    for (const r of results) {
      expect(r.unit, r.id).toBe(unitOf(r.id));
      expect(r.command, r.id).toBe('node dist/bench/auth.js --quick');
      expect(r.baseline, r.id).not.toBeNull();
      expect(Number.isFinite(r.value) && r.value >= 0, r.id).toBe(true);
    }
    // Both MDSs answer heartbeats while idle, so each has an idle CPU rate above zero.
    const idleMds = results.find((r) => r.id === 'auth.idle.cpu-mds');
    expect([idleMds?.value ?? 0, idleMds?.baseline ?? 0].every((v) => v > 0)).toBe(true);
    // Every rate and every total CPU is above zero on both sides (each ran).
    for (const r of results.filter((x) => !x.id.includes('.cpu-')))
      expect([r.id, r.value > 0, (r.baseline ?? 0) > 0]).toEqual([r.id, true, true]);
    expect(results[0]?.note).toMatch(
      /median of 2 alternating rounds; CPU net of idle CPU; .* 20 files of 4 KiB; load [\d.]+ -> [\d.]+/,
    );
  });
});
