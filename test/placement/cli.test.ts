import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { registerPlacementCommands } from '../../cli/commands/placement.js';
import { buildTopology, setOstWeight } from '../../placement/index.js';

async function runCli(args: string[]): Promise<{ out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command().exitOverride();
  registerPlacementCommands(program, { out: (t) => out.push(t), err: (t) => err.push(t) });
  await program.parseAsync(args, { from: 'user' });
  return { out, err };
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('stripefs placement CLI', () => {
  it('test --json prints the documented fields', async () => {
    const { out } = await runCli([
      'placement',
      'test',
      '--topology',
      'dc=1,rack=3,host=4,ost=2',
      '--rule',
      'replicated:3:rack',
      '--inputs',
      '3000',
      '--json',
    ]);
    const r = JSON.parse(out[0]!);
    for (const key of [
      'maxOverExpected',
      'minOverExpected',
      'stddev',
      'unplaced',
      'mappingsPerSecond',
      'cpuMappingsPerSecond',
      'osts',
    ]) {
      expect(r).toHaveProperty(key);
    }
    expect(r.osts).toHaveLength(24);
    expect(r.osts[0]).toEqual({ id: 0, count: expect.any(Number), expected: 375 });
    expect(r.unplaced).toBe(0);
    expect(r.maxOverExpected).toBeLessThan(1.2);
  });

  it('diff --json with files and crushtool-style --weight', async () => {
    const before = buildTopology({ racks: 3, hostsPerRack: 4, ostsPerHost: 2 });
    const dir = tmpdir();
    const a = join(dir, `stripefs-before-${process.pid}.json`);
    const b = join(dir, `stripefs-after-${process.pid}.json`);
    writeFileSync(a, JSON.stringify(before));
    writeFileSync(b, JSON.stringify(setOstWeight(before, 3, 0)));
    const common = ['--rule', 'ec:4+2:host', '--inputs', '2000', '--json'];
    const viaFiles = JSON.parse(
      (await runCli(['placement', 'diff', '--before', a, '--after', b, ...common])).out[0]!,
    );
    const viaWeight = JSON.parse(
      (await runCli(['placement', 'diff', '--before', a, '--weight', '3', '0', ...common])).out[0]!,
    );
    expect(viaFiles).toEqual(viaWeight);
    for (const key of ['movedFraction', 'idealFraction', 'ratio']) expect(viaFiles).toHaveProperty(key);
    expect(viaFiles.idealFraction).toBeCloseTo(1 / 24, 6);
    expect(viaFiles.ratio).toBeGreaterThanOrEqual(1);
  });

  it('explain prints every draw and rejection', async () => {
    const { out } = await runCli([
      'placement',
      'explain',
      '--topology',
      'rack=3,host=2,ost=2',
      '--rule',
      'ec:4+2:host',
      '--input',
      '7',
      '--out',
      '0',
      '--json',
    ]);
    const r = JSON.parse(out[0]!);
    expect(r.steps.length).toBeGreaterThan(6);
    expect(r.steps.at(-1).level).toBe('result');
    const human = await runCli([
      'placement',
      'explain',
      '--topology',
      'rack=3,host=2,ost=2',
      '--rule',
      'replicated:3:rack',
      '--input',
      '7',
    ]);
    expect(human.out[0]).toMatch(/accepted/);
  });

  it('runs a multi-step Ceph rule (--rule-id) in test, diff and explain', async () => {
    const sample = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'ceph-sample.crush.txt');
    const common = ['--map', sample, '--rule-id', '2', '--json'];
    const test = JSON.parse((await runCli(['placement', 'test', ...common, '--inputs', '2000'])).out[0]!);
    expect(test.rule).toBe('replicated:2:rack=2,host=1:default');
    expect(test.unplaced).toBe(0);
    expect(test.osts.reduce((s: number, o: { count: number }) => s + o.count, 0)).toBe(4000);
    const diff = JSON.parse(
      (
        await runCli([
          'placement',
          'diff',
          '--before',
          sample,
          ...common.slice(2),
          '--out',
          '3',
          '--inputs',
          '2000',
        ])
      ).out[0]!,
    );
    expect(diff.ratio).toBeGreaterThan(0);
    const explain = JSON.parse((await runCli(['placement', 'explain', ...common, '--input', '5'])).out[0]!);
    expect(explain.steps.filter((s: { level: string }) => s.level === 'rack')).toHaveLength(2);
    expect(explain.steps.at(-1).level).toBe('result');
  });

  it('bad input: one line on stderr and exit code 2', async () => {
    const { out, err } = await runCli([
      'placement',
      'test',
      '--topology',
      'rack=3,host=x',
      '--rule',
      'replicated:3:rack',
    ]);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^stripefs placement: topology/);
    expect(process.exitCode).toBe(2);
  });
});
