import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { configDocRows } from '../../common/config-doc.js';

it('docs/configuration.md lists every key of the schema (regenerate the table from configDocRows)', () => {
  const doc = readFileSync('docs/configuration.md', 'utf8');
  const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
  expect(rows).toEqual(configDocRows());
});
