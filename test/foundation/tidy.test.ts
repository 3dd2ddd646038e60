// The tidy rules, checked on every run (TigerBeetle's tidy check, written as a test):
// - functions stay under FUNCTION_LINES_MAX lines; the ones over it today are listed with
//   their length, which may shrink but never grow, and no new one may join them;
// - an error swallowed with `.catch(() => undefined)` (or false, null, {}) says why, in a
//   comment on its line or the line above, or is handled instead;
// - a comment that names a file names one that exists;
// - the test helpers every area shares (test/helpers) are defined there only, not again in a
//   test file.
// Production code, the bench and test helpers count; test bodies (describe and it
// callbacks in *.test.ts and *.e2e.ts) do not have a function-length limit. Generated code (proto/gen) is not checked.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const FUNCTION_LINES_MAX = 70;
const FOLDERS = [
  'common',
  'proto',
  'placement',
  'mds',
  'oss',
  'client',
  'checkpoint',
  's3',
  'cli',
  'bench',
  'test',
  'scripts',
];
const SKIPPED = ['proto/gen', 'test/fixtures'];

/**
 * Functions over FUNCTION_LINES_MAX lines when this list was made, with their length then.
 * Shorten one and lower its number (or drop it once it is under the limit); never raise one.
 */
const LONG_FUNCTIONS: Record<string, number> = {
  'bench/client.ts runClientBench': 208,
  'cli/cluster/launcher.ts launchCluster': 137,
  'oss/build.ts buildOss': 134,
  'mds/build.ts buildMds': 121,
  'bench/oss.ts runOssBench': 104,
  'bench/mds.ts runMdsBench': 99,
  'bench/erasure.ts runErasureBench': 82,
  'test/oss/fake-mds.ts startFakeMds': 82,
  'oss/bulk-server.ts handleWrite': 76,
  'oss/bulk-server.ts handleRead': 76,
  'bench/recovery.ts runRecoveryBench': 75,
  'bench/placement.ts runPlacementBench': 73,
  'bench/mount.ts runMountBench': 71,
};

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (SKIPPED.includes(path)) continue;
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const FILES = FOLDERS.filter((f) => existsSync(f)).flatMap((f) => [...sourceFiles(f)]);

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
}

/** A function's name as a reader finds it: Class.method, the variable or property it is assigned to. */
function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  let own = named.name && ts.isIdentifier(named.name) ? named.name.text : undefined;
  if (!own && ts.isConstructorDeclaration(node)) own = 'constructor';
  const parent = node.parent;
  if (!own && parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    own = ts.isIdentifier(parent.name) ? parent.name.text : undefined;
  let holder: ts.Node | undefined = node.parent;
  while (holder && !ts.isClassLike(holder)) holder = holder.parent;
  const className = holder && ts.isClassLike(holder) && holder.name ? `${holder.name.text}.` : '';
  return own ? `${className}${own}` : `<anonymous at line ${lineOf(node, node.getStart()) + 1}>`;
}

function lineOf(node: ts.Node, position: number): number {
  return node.getSourceFile().getLineAndCharacterOfPosition(position).line;
}

/** Every function of a file that is not a test body, with its length in lines. */
function functionLengths(path: string): { key: string; lines: number }[] {
  const found: { key: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(node, node.getEnd()) - lineOf(node, node.getStart()) + 1;
      found.push({ key: `${path} ${nameOf(node)}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(path));
  return found;
}

/** The comments of a file, each with the line it starts on (1-based). */
function comments(path: string): { line: number; text: string }[] {
  const text = readFileSync(path, 'utf8');
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, false, ts.LanguageVariant.Standard, text);
  const found: { line: number; text: string }[] = [];
  let line = 1;
  let counted = 0;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind !== ts.SyntaxKind.SingleLineCommentTrivia && kind !== ts.SyntaxKind.MultiLineCommentTrivia)
      continue;
    const at = scanner.getTokenStart();
    for (; counted < at; counted++) if (text.charCodeAt(counted) === 10) line++;
    found.push({ line, text: scanner.getTokenText() });
  }
  return found;
}

describe('tidy', () => {
  it(`keeps functions under ${FUNCTION_LINES_MAX} lines, and the listed long ones from growing`, () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const path of FILES.filter((f) => !/\.(test|e2e)\.ts$/.test(f))) {
      for (const { key, lines } of functionLengths(path)) {
        const allowed = LONG_FUNCTIONS[key];
        if (allowed !== undefined) seen.add(key);
        if (lines <= FUNCTION_LINES_MAX) continue;
        if (allowed === undefined) problems.push(`${key}: ${lines} lines (at most ${FUNCTION_LINES_MAX})`);
        else if (lines > allowed) problems.push(`${key}: ${lines} lines, grew from ${allowed}`);
      }
    }
    for (const key of Object.keys(LONG_FUNCTIONS))
      if (!seen.has(key)) problems.push(`${key}: listed in LONG_FUNCTIONS but gone (drop its entry)`);
    expect(problems).toEqual([]);
  });

  it('says why wherever it swallows an error', () => {
    const bare = /\.catch\(\(\w*\) => (undefined|null|false|\{\s*\}|void 0)\)/;
    const problems: string[] = [];
    for (const path of FILES) {
      const lines = readFileSync(path, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (!bare.test(line)) return;
        const above = lines[i - 1]?.trim() ?? '';
        const explained =
          /\/\/|\/\*/.test(line.replace(/(['"`]).*?\1/g, '')) ||
          above.startsWith('//') ||
          above.startsWith('*');
        if (!explained) problems.push(`${path}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(problems).toEqual([]);
  });

  it('defines the shared test helpers only in test/helpers', () => {
    const shared = ['codeOf', 'errorCode', 'connectReader', 'eventually', 'seededBytes', 'overwrite'];
    const defines = new RegExp(
      `^\\s*(?:export )?(?:async )?(?:function\\*? (${shared.join('|')})\\b|const (${shared.join('|')}) = )`,
    );
    const problems: string[] = [];
    for (const path of FILES.filter((f) => f.startsWith('test/') && !f.startsWith('test/helpers/')))
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const match = defines.exec(line);
          if (match) problems.push(`${path}:${i + 1}: ${match[1] ?? match[2]} (import it from test/helpers)`);
        });
    expect(problems).toEqual([]);
  });

  it('names only files that exist in its comments', () => {
    const fileName =
      /(?<![\w@/.-])((?:[\w.-]+\/)*[\w-]+\.(?:ts|js|mjs|md|json|proto|wat|c|yml|yaml))(?![\w/])/g;
    // From the repository's root, or from the file's folder or any folder above it.
    const ancestors = (from: string): string[] => {
      const dirs: string[] = [];
      for (let dir = dirname(from); dir !== '.' && dir !== '/'; dir = dirname(dir)) dirs.push(dir);
      return dirs;
    };
    const exists = (from: string, name: string): boolean =>
      [name, ...ancestors(from).map((dir) => join(dir, name))].some(
        (candidate) =>
          existsSync(candidate) ||
          // A built file (dist/x.js) or an import specifier (./x.js) of a TypeScript source.
          existsSync(candidate.replace(/^dist\//, '').replace(/\.js$/, '.ts')),
      );
    const problems: string[] = [];
    for (const path of FILES)
      for (const { line, text } of comments(path))
        for (const match of text.matchAll(fileName))
          if (!exists(path, match[1] as string)) problems.push(`${path}:${line}: ${match[1]}`);
    expect(problems).toEqual([]);
  });
});
