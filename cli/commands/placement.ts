import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  buildTopology,
  type ClusterMap,
  diffMaps,
  explainInput,
  formatExplain,
  formatRuleSpec,
  parseCephCrushText,
  parseRuleSpec,
  parseTopologySpec,
  type RuleSpec,
  setOstState,
  setOstWeight,
  simulate,
  validateMap,
} from '../../placement/index.js';

/** Where the commands write; tests pass their own to capture output. */
export interface PlacementIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: PlacementIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};

const DEFAULT_INPUTS = 10_000;

interface MapOpts {
  map?: string;
  topology?: string;
  rule?: string;
  ruleId?: string;
  numRep?: string;
  weight?: string[];
  out?: string[];
}

interface Loaded {
  map: ClusterMap;
  cephRules: { id: number; asRuleSpec?: RuleSpec; notRunnable?: string }[];
}

/** A JSON stripefs map or a Ceph text map (`crushtool -d` output). */
function loadMapFile(path: string): Loaded {
  const text = readFileSync(path, 'utf8');
  if (text.trimStart().startsWith('{')) {
    return { map: validateMap(JSON.parse(text)), cephRules: [] };
  }
  const imported = parseCephCrushText(text);
  return { map: imported.map, cephRules: imported.rules };
}

function loadMap(opts: MapOpts, fileOpt: 'map' | 'before' | 'after', file?: string): Loaded {
  if (file) return loadMapFile(file);
  if (opts.topology) return { map: buildTopology(parseTopologySpec(opts.topology)), cephRules: [] };
  throw new Error(`--${fileOpt} FILE or --topology SPEC is required`);
}

/** crushtool-style `--weight ID W` pairs and `--out ID`: simulate a changed or out OST. */
function applyEdits(map: ClusterMap, opts: MapOpts): ClusterMap {
  const pairs = opts.weight ?? [];
  if (pairs.length % 2 !== 0) throw new Error('--weight takes pairs: --weight ID WEIGHT');
  for (let i = 0; i < pairs.length; i += 2)
    map = setOstWeight(map, toInt(pairs[i]!, '--weight ID'), Number(pairs[i + 1]));
  for (const id of opts.out ?? []) map = setOstState(map, toInt(id, '--out ID'), { in: false });
  return map;
}

function toInt(text: string, what: string): number {
  const v = Number(text);
  if (!Number.isInteger(v)) throw new Error(`${what}: '${text}' is not an integer`);
  return v;
}

function resolveRule(opts: MapOpts, loaded: Loaded): RuleSpec {
  let rule: RuleSpec | undefined;
  if (opts.rule) rule = parseRuleSpec(opts.rule);
  else if (opts.ruleId !== undefined) {
    const id = toInt(opts.ruleId, '--rule-id');
    const ceph = loaded.cephRules.find((r) => r.id === id);
    if (!ceph) throw new Error(`--rule-id ${id}: no such rule in the map`);
    if (!ceph.asRuleSpec) throw new Error(`--rule-id ${id}: ${ceph.notRunnable ?? 'cannot run'}`);
    rule = ceph.asRuleSpec;
  } else throw new Error('--rule SPEC (e.g. replicated:3:rack, ec:4+2:host) or --rule-id N is required');
  if (opts.numRep === undefined) return rule;
  const n = toInt(opts.numRep, '--num-rep');
  return rule.kind === 'replicated' ? { ...rule, size: n } : { ...rule, k: n - rule.m };
}

function inputRange(opts: { inputs?: string; minX?: string; maxX?: string }): { minX: number; maxX: number } {
  const minX = opts.minX === undefined ? 0 : toInt(opts.minX, '--min-x');
  if (opts.maxX !== undefined) return { minX, maxX: toInt(opts.maxX, '--max-x') };
  const inputs = opts.inputs === undefined ? DEFAULT_INPUTS : toInt(opts.inputs, '--inputs');
  return { minX, maxX: minX + inputs - 1 };
}

function mapOptions(cmd: Command, withMap = true): Command {
  if (withMap) cmd.option('--map <file>', 'cluster map: stripefs JSON or Ceph text (crushtool -d)');
  return cmd
    .option('--topology <spec>', 'generated map, e.g. dc=1,rack=3,host=4,ost=2')
    .option('--rule <spec>', 'replicated:N:DOMAIN or ec:K+M:DOMAIN; DOMAIN may be steps: rack=2,host=2')
    .option('--rule-id <n>', 'use rule N of a Ceph text map')
    .option('--num-rep <n>', 'replica count (crushtool --num-rep)')
    .option('--weight <idAndWeight...>', 'set OST ID weight W (pairs), as crushtool --weight')
    .option('--out <ids...>', 'mark OSTs out')
    .option('--json', 'print JSON');
}

function run(io: PlacementIo, body: () => void): void {
  try {
    body();
  } catch (e) {
    io.err(`stripefs placement: ${e instanceof Error ? e.message : String(e)}`.split('\n')[0]!);
    process.exitCode = 2;
  }
}

export function registerPlacementCommands(program: Command, io: PlacementIo = defaultIo): void {
  const placement = program.command('placement').description('simulate and explain data placement');
  mapOptions(placement.command('test').description('utilisation per OST over many inputs'))
    .option('--inputs <n>', `number of inputs (default ${DEFAULT_INPUTS})`)
    .option('--min-x <n>', 'first input')
    .option('--max-x <n>', 'last input')
    .action((opts) => run(io, () => testCommand(io, opts)));
  mapOptions(placement.command('diff').description('fraction of placements moved between two maps'), false)
    .option('--before <file>', 'map before (or --topology)')
    .option('--after <file>', 'map after (default: before with --weight/--out applied)')
    .option('--inputs <n>', `number of inputs (default ${DEFAULT_INPUTS})`)
    .option('--min-x <n>', 'first input')
    .option('--max-x <n>', 'last input')
    .action((opts) => run(io, () => diffCommand(io, opts)));
  mapOptions(placement.command('explain').description('the walk of one input'))
    .requiredOption('--input <x>', 'the input to explain')
    .action((opts) => run(io, () => explainCommand(io, opts)));
}

function testCommand(
  io: PlacementIo,
  opts: MapOpts & { json?: boolean; inputs?: string; minX?: string; maxX?: string },
) {
  const loaded = loadMap(opts, 'map', opts.map);
  const map = applyEdits(loaded.map, opts);
  const rule = resolveRule(opts, loaded);
  const range = inputRange(opts);
  const started = process.hrtime.bigint(); // the CLI reads the clock; the library never does
  const cpuStarted = process.cpuUsage();
  const result = simulate(map, rule, range);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStarted);
  const mappingsPerSecond = Math.round(result.inputs / Math.max(seconds, 1e-9));
  // per second of this process's CPU time: what one core does, however busy the machine is
  const cpuMappingsPerSecond = Math.round(result.inputs / Math.max((cpu.user + cpu.system) / 1e6, 1e-9));
  if (opts.json)
    return io.out(
      JSON.stringify({ rule: formatRuleSpec(rule), ...result, mappingsPerSecond, cpuMappingsPerSecond }),
    );
  const names = new Map(map.osts.map((o) => [o.id, o.name]));
  const rows = result.osts.map(
    (o) =>
      `${(names.get(o.id) ?? String(o.id)).padEnd(12)} ${String(o.count).padStart(9)} ${o.expected.toFixed(1).padStart(11)} ${o.expected > 0 ? (o.count / o.expected).toFixed(3) : '-'}`,
  );
  io.out(
    [
      `rule ${formatRuleSpec(rule)}, inputs ${range.minX}..${range.maxX}`,
      `${'ost'.padEnd(12)} ${'count'.padStart(9)} ${'expected'.padStart(11)} count/expected`,
      ...rows,
      `max/expected ${result.maxOverExpected.toFixed(4)}  min/expected ${result.minOverExpected.toFixed(4)}  stddev ${result.stddev.toFixed(1)} (${(result.stddevOverExpected * 100).toFixed(2)}%)`,
      `unplaced ${result.unplaced}  mappings/s ${mappingsPerSecond} (per CPU second ${cpuMappingsPerSecond})`,
    ].join('\n'),
  );
}

function diffCommand(
  io: PlacementIo,
  opts: MapOpts & {
    json?: boolean;
    before?: string;
    after?: string;
    inputs?: string;
    minX?: string;
    maxX?: string;
  },
) {
  const beforeLoaded = loadMap(opts, 'before', opts.before);
  const after = applyEdits(opts.after ? loadMapFile(opts.after).map : beforeLoaded.map, opts);
  const rule = resolveRule(opts, beforeLoaded);
  const result = diffMaps(beforeLoaded.map, after, rule, inputRange(opts));
  if (opts.json) return io.out(JSON.stringify({ rule: formatRuleSpec(rule), ...result }));
  io.out(
    [
      `rule ${formatRuleSpec(rule)}: ${result.moved} of ${result.slots} members moved`,
      `movedFraction ${result.movedFraction.toFixed(5)}  idealFraction ${result.idealFraction.toFixed(5)}  ratio ${result.ratio.toFixed(3)}`,
    ].join('\n'),
  );
}

function explainCommand(io: PlacementIo, opts: MapOpts & { json?: boolean; input: string }) {
  const loaded = loadMap(opts, 'map', opts.map);
  const map = applyEdits(loaded.map, opts);
  const rule = resolveRule(opts, loaded);
  const steps = explainInput(map, rule, toInt(opts.input, '--input'));
  if (opts.json)
    return io.out(JSON.stringify({ rule: formatRuleSpec(rule), input: Number(opts.input), steps }));
  io.out(`rule ${formatRuleSpec(rule)}, input ${opts.input}\n${formatExplain(steps)}`);
}
