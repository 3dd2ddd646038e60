// Every CLI call is a fresh process that pays for what it imports: building
// the command tree must not load the client library, the protocol, the
// servers or the database. Commands import those when they run.
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';

const PROBE = `
import { createRequire } from 'node:module';
const { buildProgram } = await import(process.cwd() + '/dist/cli/program.js');
buildProgram();
const loaded = Object.keys(createRequire(import.meta.url).cache);
process.stdout.write(JSON.stringify(loaded));
`;

it('builds the command tree without loading the client, protocol, servers or database', () => {
  const loaded = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', PROBE]).toString(),
  ) as string[];
  // The probe sees modules loaded through require: commander is one, so an empty list means a broken probe.
  expect(loaded.some((path) => path.includes('/commander/'))).toBe(true);
  for (const heavy of ['/protobufjs/', '/@grpc/proto-loader/', '/classic-level/', '/fastify/', '/pino/']) {
    expect(loaded.filter((path) => path.includes(heavy))).toEqual([]);
  }
});
