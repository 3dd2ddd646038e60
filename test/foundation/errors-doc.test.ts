// docs/errors.md and the registry in common/errors.ts must list the same
// codes with the same gRPC status, HTTP status and errno.
import { readFileSync } from 'node:fs';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect, it } from 'vitest';
import { ERROR_CODES } from '../../common/errors.js';

it('docs/errors.md matches the error registry', () => {
  const doc = readFileSync('docs/errors.md', 'utf8');
  const documented = doc
    .split('\n')
    .filter((line) => /^\| `[A-Z0-9_]+` \|/.test(line))
    .map((line) => line.split('|').map((cell) => cell.trim()));
  const fromDoc = documented.map((cells) => `${cells[1]} ${cells[2]} ${cells[3]} ${cells[4]}`).sort();
  const fromRegistry = Object.entries(ERROR_CODES)
    .map(([code, spec]) => `\`${code}\` ${GrpcStatus[spec.grpc]} ${spec.http} ${spec.errno}`)
    .sort();
  expect(fromDoc).toEqual(fromRegistry);
});
