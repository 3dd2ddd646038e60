// Imports flow one way: common, proto <- placement <- layout <- wire <- {mds, oss, client}
// <- front doors (checkpoint, s3: client and common only) <- cli.
// placement depends on nothing of ours; layout (the file layout value) and wire
// (the protobuf codecs) are shared by mds, oss and client, which never import
// each other; nothing imports cli. bench and test may import anything.
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import { expect, it } from 'vitest';

const ALLOWED: Record<string, string[]> = {
  common: ['common'],
  proto: ['proto'],
  placement: ['placement'],
  layout: ['layout', 'placement', 'common'],
  wire: ['wire', 'layout', 'placement', 'common', 'proto'],
  mds: ['mds', 'wire', 'layout', 'placement', 'common', 'proto'],
  oss: ['oss', 'wire', 'layout', 'placement', 'common', 'proto'],
  client: ['client', 'wire', 'layout', 'placement', 'common', 'proto'],
  checkpoint: ['checkpoint', 'client', 'common'],
  mount: ['mount', 'client', 'common'],
  s3: ['s3', 'client', 'common'],
  cli: [
    'cli',
    'checkpoint',
    'client',
    'mount',
    's3',
    'mds',
    'oss',
    'wire',
    'layout',
    'placement',
    'common',
    'proto',
  ],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('gen'))
    .map((e) => join(e.parentPath, e.name));
}

it('every import follows the allowed direction', () => {
  const violations: string[] = [];
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    for (const file of sourceFiles(folder)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = normalize(join(file, '..', match[1] as string));
        const top = relative('.', target).split('/')[0] as string;
        if (!allowed.includes(top))
          violations.push(`${file} imports ${match[1]} (${folder} may not depend on ${top})`);
      }
    }
  }
  expect(violations).toEqual([]);
});
