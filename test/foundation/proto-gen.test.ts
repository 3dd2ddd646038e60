// The generated types in proto/gen/ must match the .proto file: regenerate
// into a temporary folder and compare file by file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

it('proto/gen is current (run `npm run proto:gen` after editing the .proto)', () => {
  const out = mkdtempSync(join(tmpdir(), 'stripefs-protogen-'));
  try {
    execFileSync(process.execPath, ['scripts/gen-proto.mjs', out], { stdio: 'pipe' });
    const expected = listFiles(out);
    expect(listFiles('proto/gen')).toEqual(expected);
    for (const file of expected) {
      expect(readFileSync(join('proto/gen', file), 'utf8'), file).toBe(readFileSync(join(out, file), 'utf8'));
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
