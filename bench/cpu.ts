// CPU a bench's processes use, read the one way every suite reads it: this
// process (the client) from process.cpuUsage, a child (an MDS, an OSS) from
// /proc/<pid>/stat. CPU per operation or per GiB depends far less on how busy
// the shared machine is than a rate does, so the suites that compare two
// configurations (bench/tls.ts, bench/auth.ts) report it beside the rates,
// measured with `measureInto` in rounds that `alternate` between them.
import { readdirSync, readFileSync } from 'node:fs';
import type { Cluster } from '../test/helpers/cluster.js';

export interface Cpu {
  user: number;
  system: number;
}

/**
 * CPU ms (user, system) used so far by this process (no pid) or by a child, from /proc (clock
 * ticks of 10 ms); NaN for a process that is gone.
 */
export function cpuMs(pid?: number): Cpu {
  if (pid === undefined) {
    const u = process.cpuUsage();
    return { user: u.user / 1000, system: u.system / 1000 };
  }
  try {
    // Fields after the command name: state is [0], utime [11], stime [12].
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(f[11]) * 10, system: Number(f[12]) * 10 };
  } catch {
    return { user: Number.NaN, system: Number.NaN };
  }
}

/**
 * CPU ms, user and system together, of this process (no pid) or of a child: for a child the sum
 * of its threads' run time in /proc/<pid>/task/<tid>/schedstat (nanoseconds; /proc/<pid>/stat
 * counts 10 ms ticks, too coarse for a phase of a few hundred stats), else its ticks.
 */
export function cpuTotalMs(pid?: number): number {
  if (pid === undefined) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0]);
    if (Number.isFinite(ns) && ns > 0) return ns / 1e6;
  } catch {
    // A thread that ended between the listing and its read, or no schedstat: the ticks below.
  }
  const c = cpuMs(pid);
  return c.user + c.system;
}

export const ROLES = ['client', 'mds', 'oss'] as const;
export type Role = (typeof ROLES)[number];

/** CPU ms so far of this process (the client), the cluster's MDS and its OSSs together. */
export function clusterCpuMs(cluster: Cluster): Record<Role, number> {
  return {
    client: cpuTotalMs(),
    mds: cpuTotalMs(cluster.mds.child.pid),
    oss: cluster.oss.reduce((sum, p) => sum + cpuTotalMs(p.child.pid), 0),
  };
}

/** Rounds of one measurement: its rate and the CPU ms per unit of each role and of all. */
export interface Samples {
  rate: number[];
  cpu: Record<Role | 'total', number[]>;
}

export const samples = (): Samples => ({ rate: [], cpu: { client: [], mds: [], oss: [], total: [] } });

/** CPU ms per second each role burns with no work asked of it (heartbeats, leases, tickers). */
export type IdleRate = Record<Role, number>;

/**
 * The idle CPU rate of `cluster` (and of this process), measured over `ms` of doing nothing.
 * A phase of a few hundred stats lasts a fraction of a second, in which heartbeats and background
 * tickers add their share to every stat (an MDS idling at ~20 ms/s adds 13 us per stat at 1,500
 * stats/s), more on a slower (busier) round: `measureInto` takes it off so CPU per operation is the
 * operation's.
 */
export async function measureIdle(cluster: Cluster, ms: number): Promise<IdleRate> {
  const before = clusterCpuMs(cluster);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const seconds = (performance.now() - started) / 1000;
  const after = clusterCpuMs(cluster);
  return Object.fromEntries(ROLES.map((r) => [r, (after[r] - before[r]) / seconds])) as IdleRate;
}

/**
 * Runs `work` on `cluster` and adds a round to `into`: `rateUnits` per second (GB, operations)
 * and the CPU ms of each process per one of `cpuUnits` (GiB, operations), less `idle` (the
 * CPU each process would have burnt doing nothing for as long) when given.
 */
export async function measureInto(
  cluster: Cluster,
  into: Samples,
  units: { rate: number; cpu: number },
  work: () => Promise<unknown>,
  idle?: IdleRate,
): Promise<void> {
  const before = clusterCpuMs(cluster);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const after = clusterCpuMs(cluster);
  into.rate.push(units.rate / seconds);
  let total = 0;
  for (const role of ROLES) {
    const background = idle ? idle[role] * seconds : 0;
    // Never below zero: an idle sample that caught a background tick can exceed a short phase's share.
    const per = Math.max(0, after[role] - before[role] - background) / units.cpu;
    into.cpu[role].push(per);
    total += per;
  }
  into.cpu.total.push(total);
}

/**
 * `rounds` rounds over `sides`, in turn and in the reverse order every other round (a, b, b,
 * a, ...), so load on the machine falls on every side alike.
 */
export async function alternate<S>(
  sides: readonly S[],
  rounds: number,
  each: (side: S, round: number) => Promise<void>,
): Promise<void> {
  for (let round = 0; round < rounds; round++)
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) await each(side, round);
}
