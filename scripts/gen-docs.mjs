// Regenerates the generated tables in docs/errors.md and docs/configuration.md
// from the registry and the schema (run `npm run build` first). Tests fail
// when the docs and the code disagree; this is how to make them agree again.
import { readFileSync, writeFileSync } from 'node:fs';
import { status } from '@grpc/grpc-js';
import { configDocRows } from '../dist/common/config-doc.js';
import { ERROR_CODES } from '../dist/common/errors.js';

function replaceTable(file, header, rows) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const start = lines.indexOf(header);
  if (start < 0) throw new Error(`${file}: table header not found`);
  let end = start + 2;
  while (end < lines.length && lines[end].startsWith('|')) end++;
  const out = [...lines.slice(0, start + 2), ...rows, ...lines.slice(end)];
  writeFileSync(file, out.join('\n'));
}

replaceTable(
  'docs/errors.md',
  '| code | gRPC status | HTTP | errno | meaning |',
  Object.entries(ERROR_CODES).map(
    ([code, s]) => `| \`${code}\` | ${status[s.grpc]} | ${s.http} | ${s.errno} | ${s.summary} |`,
  ),
);
replaceTable('docs/configuration.md', '| key | environment variable | default | meaning |', configDocRows());
console.log('docs tables regenerated');
