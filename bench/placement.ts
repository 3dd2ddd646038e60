/**
 * Placement benchmark: balance, movement and speed of the stripefs rules on the reference map
 * (3 racks x 4 hosts x 2 OSTs, equal weights), side by side with Ceph's crushtool when it is
 * installed. Run: node dist/bench/placement.js [--quick]. The clock is read here, never in placement/.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  addOsts,
  buildTopology,
  type ClusterMap,
  diffMaps,
  expectedShares,
  idealMovedFraction,
  movedMembers,
  parseRuleSpec,
  placerFor,
  type RuleSpec,
  ruleWidth,
  setOstState,
  setOstWeight,
  simulate,
  summarise,
  toCephCrushText,
} from '../placement/index.js';

import type { BenchResult } from './types.js';

/** Ceph crushtool figures from the issue, used as baselines when crushtool is not installed. */
const CEPH_REFERENCE: Record<string, number> = {
  'maxOverExpected.rep': 1.018,
  'maxOverExpected.ec': 1.012,
  'unplaced.rep': 0,
  'unplaced.ec': 0,
  'ratio.addRack.rep': 1.39,
  'ratio.addRack.ec': 1.17,
  'ratio.out.rep': 1.01,
  'ratio.out.ec': 1.02,
  'ratio.weightZero.rep': 2.51,
  'ratio.weightZero.ec': 2.46,
  'ratio.hostDouble.rep': 2.54,
  'ratio.hostDouble.ec': 1.79,
  'mappingsPerSecond.rep': 694_000,
  'mappingsPerSecond.ec': 374_000,
};

const RULES: Record<'rep' | 'ec', RuleSpec> = {
  rep: parseRuleSpec('replicated:3:rack'),
  ec: parseRuleSpec('ec:4+2:host'),
};

interface Scenario {
  name: string;
  after: ClusterMap;
  crushWeights: string[]; // crushtool --weight args for OSD-map state (out)
}

function scenarios(base: ClusterMap): Scenario[] {
  let added = base;
  for (let h = 0; h < 4; h++) {
    const ids = [24 + 2 * h, 25 + 2 * h];
    added = addOsts(
      added,
      { rack: 'rack3', host: `host${12 + h}` },
      ids.map((id) => ({ id, name: `ost${id}`, weight: 1 })),
    );
  }
  return [
    { name: 'addRack', after: added, crushWeights: [] },
    { name: 'out', after: setOstState(base, 5, { in: false }), crushWeights: ['--weight', '5', '0'] },
    { name: 'weightZero', after: setOstWeight(base, 5, 0), crushWeights: [] },
    { name: 'hostDouble', after: setOstWeight(setOstWeight(base, 4, 2), 5, 2), crushWeights: [] },
  ];
}

/** Full placements per second through a Placer (no allocation per input, as simulate runs). */
function mappingsPerSecond(map: ClusterMap, rule: RuleSpec, inputs: number): number {
  const placer = placerFor(map, rule);
  const out = new Int32Array(placer.width);
  for (let x = 0; x < Math.min(inputs, 20_000); x++) placer.placeInto(x, out); // warm the JIT
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const started = process.hrtime.bigint();
    for (let x = 0; x < inputs; x++) placer.placeInto(x, out);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    best = Math.max(best, inputs / seconds); // best of 3: the machine is shared
  }
  return Math.round(best);
}

/** crushtool's mappings for every input, or undefined when crushtool is missing or fails. */
function crushMappings(dir: string, map: ClusterMap, kind: 'rep' | 'ec', maxX: number, extra: string[]) {
  const text = toCephCrushText(map, [RULES.rep, RULES.ec]);
  const src = join(dir, 'map.txt');
  const bin = join(dir, 'map.bin');
  writeFileSync(src, text);
  try {
    execFileSync('crushtool', ['-c', src, '-o', bin], { stdio: 'pipe' });
    const args = [
      '-i',
      bin,
      '--test',
      '--rule',
      kind === 'rep' ? '0' : '1',
      '--num-rep',
      String(ruleWidth(RULES[kind])),
    ];
    const out = execFileSync(
      'crushtool',
      [...args, '--min-x', '0', '--max-x', String(maxX), '--show-mappings', ...extra],
      {
        maxBuffer: 1 << 28,
        encoding: 'utf8',
      },
    );
    const rows: number[][] = [];
    for (const line of out.split('\n')) {
      const m = /x (\d+) \[([^\]]*)\]/.exec(line);
      if (m)
        rows[Number(m[1])] =
          m[2] === '' ? [] : m[2]!.split(',').map((v) => (Number(v) === 2147483647 ? -1 : Number(v)));
    }
    return rows;
  } catch {
    return undefined;
  }
}

function crushUtil(map: ClusterMap, kind: 'rep' | 'ec', rows: number[][]) {
  const counts = new Map(map.osts.map((o) => [o.id, 0]));
  let unplaced = 0;
  for (const row of rows) {
    if (row.includes(-1) || row.length < ruleWidth(RULES[kind])) unplaced++;
    for (const id of row) if (id >= 0) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return summarise(counts, expectedShares(map, RULES[kind]), rows.length, unplaced);
}

function result(
  id: string,
  value: number,
  unit: string,
  baseline: number | null,
  command: string,
): BenchResult {
  return {
    id: `placement.${id}`,
    value,
    unit,
    baseline,
    ratio: baseline ? value / baseline : null,
    command,
    ...(baseline === null
      ? {}
      : { baselineName: hasCrushtool() ? 'Ceph crushtool, same run' : 'Ceph crushtool, from the issue' }),
  };
}

let crushtoolPresent: boolean | undefined;
/** Whether Ceph's crushtool can be run here (checked once). */
function hasCrushtool(): boolean {
  if (crushtoolPresent === undefined) {
    try {
      execFileSync('crushtool', ['--help'], { stdio: 'pipe' });
      crushtoolPresent = true;
    } catch (err) {
      // crushtool --help exits non-zero but prints usage when it exists
      crushtoolPresent = (err as { code?: string }).code !== 'ENOENT';
    }
  }
  return crushtoolPresent;
}

export async function runPlacementBench(opts: { quick: boolean }): Promise<BenchResult[]> {
  const inputs = opts.quick ? 20_000 : 100_000;
  const range = { minX: 0, maxX: inputs - 1 };
  const base = buildTopology({ racks: 3, hostsPerRack: 4, ostsPerHost: 2 });
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-bench-'));
  const out: BenchResult[] = [];
  const cmd = (what: string) =>
    `stripefs placement ${what} --topology rack=3,host=4,ost=2 --max-x ${inputs - 1}`;
  try {
    for (const kind of ['rep', 'ec'] as const) {
      const rule = RULES[kind];
      const crushBase = crushMappings(dir, base, kind, inputs - 1, []);
      const baseline = (key: string, crush: () => number) =>
        crushBase ? crush() : (CEPH_REFERENCE[key] ?? null);
      const sim = simulate(base, rule, range);
      const cu = crushBase ? crushUtil(base, kind, crushBase) : undefined;
      out.push(
        result(
          `maxOverExpected.${kind}`,
          sim.maxOverExpected,
          'x',
          baseline(`maxOverExpected.${kind}`, () => cu!.maxOverExpected),
          cmd(`test --rule ${kind}`),
        ),
      );
      out.push(
        result(
          `unplaced.${kind}`,
          sim.unplaced,
          'inputs',
          baseline(`unplaced.${kind}`, () => cu!.unplaced),
          cmd('test'),
        ),
      );
      for (const s of scenarios(base)) {
        const d = diffMaps(base, s.after, rule, range);
        const crushAfter = crushBase
          ? crushMappings(dir, s.after, kind, inputs - 1, s.crushWeights)
          : undefined;
        const crushRatio = () => {
          let moved = 0;
          crushBase!.forEach((row, x) => {
            moved += movedMembers(rule, row, crushAfter![x]!);
          });
          return moved / (inputs * ruleWidth(rule)) / idealMovedFraction(base, s.after, rule);
        };
        const key = `ratio.${s.name}.${kind}`;
        out.push(
          result(
            key,
            d.ratio,
            'moved/ideal',
            crushAfter ? crushRatio() : (CEPH_REFERENCE[key] ?? null),
            cmd('diff'),
          ),
        );
      }
      const speedKey = `mappingsPerSecond.${kind}`;
      out.push(
        result(
          speedKey,
          mappingsPerSecond(base, rule, inputs),
          'inputs/s',
          CEPH_REFERENCE[speedKey]!,
          cmd('test'),
        ),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

function printTable(results: BenchResult[]): void {
  const rows = results.map((r) => [
    r.id,
    r.value.toFixed(r.value >= 100 ? 0 : 4),
    r.baseline === null ? '-' : r.baseline.toFixed(r.baseline >= 100 ? 0 : 4),
    r.ratio === null ? '-' : r.ratio.toFixed(3),
    r.unit,
  ]);
  const head = ['figure', 'stripefs', 'ceph', 'stripefs/ceph', 'unit'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  for (const row of [head, ...rows]) console.log(row.map((c, i) => c.padEnd(widths[i]!)).join('  '));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  console.log(
    `ceph baseline: ${hasCrushtool() ? 'crushtool, same maps and inputs' : 'figures from the issue'}`,
  );
  printTable(await runPlacementBench({ quick }));
}
