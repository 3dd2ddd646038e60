// The one shape every benchmark returns; bench/run.ts collects them into
// bench/results/latest.json and the Markdown table.
import type { BenchCluster } from './cluster.js';

/** What bench/run.ts hands every suite. */
export interface SuiteOptions {
  quick: boolean;
  /**
   * The run's shared cluster, started on the first call and stopped by the
   * runner; a suite without one starts and stops its own. A suite that breaks
   * it (kills an OSS) restores it before it returns.
   */
  cluster?: () => Promise<BenchCluster>;
}
export interface BenchResult {
  id: string;
  value: number;
  unit: string;
  /** The same-run baseline this figure is judged against, or null. */
  baseline: number | null;
  /** value / baseline, or null without a baseline. */
  ratio: number | null;
  /** The command that reproduces this figure. */
  command: string;
  /** What the baseline is (e.g. "raw TCP socket pump"). */
  baselineName?: string;
  note?: string;
}

export function result(
  id: string,
  value: number,
  unit: string,
  command: string,
  baseline?: { value: number; name: string },
  note?: string,
): BenchResult {
  return {
    id,
    value,
    unit,
    baseline: baseline?.value ?? null,
    ratio: baseline && baseline.value > 0 ? value / baseline.value : null,
    command,
    ...(baseline ? { baselineName: baseline.name } : {}),
    ...(note ? { note } : {}),
  };
}

export const GB = 1e9;

/** The middle value of `values` (the upper one of the two middles for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A Markdown table of figures measured with something `label` names on and off (bench/tls, bench/auth). */
export function onOffTable(results: readonly BenchResult[], label: string): string {
  const lines = [`| figure | ${label} on | ${label} off | on/off |`, '|---|---|---|---|'];
  for (const r of results) {
    const digits = r.unit === 'GB/s' ? 3 : 0;
    lines.push(
      `| ${r.id} | ${r.value.toFixed(digits)} ${r.unit} | ${r.baseline?.toFixed(digits) ?? '-'} | ${r.ratio?.toFixed(3) ?? '-'} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
