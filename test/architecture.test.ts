import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { docSection } from './helpers/docs.js';

/**
 * The layering the folder table of docs/how-it-is-built.md states, checked on the source: which folder
 * may import which, no import cycles (static or dynamic), and no file I/O in the pipeline.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

const FILES = sourceFiles(SRC);
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every import of a file: project files as paths relative to src/, packages and node: modules by name. */
function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => {
    const specifier = (match[1] ?? match[2])!;
    const typeOnly = /^(?:import|export)\s+type\s/.test(match[0]);
    if (!specifier.startsWith('.')) return { target: specifier, typeOnly };
    return { target: relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts'), typeOnly };
  });
}

const folderOf = (path: string) => (path.includes('/') ? path.split('/')[0]! : '(top)');
const GRAPH = new Map(FILES.map((file) => [relative(SRC, file), importsOf(file)]));

/**
 * What each folder may import from the project, as the folder table of docs/how-it-is-built.md
 * says in its last column: the folders it names, "those `engine/` may" for engine's own list
 * ("those `engine/` may but `sandbox/`": that list less one folder),
 * "everything" for cli/, "nothing" for a folder at the very bottom; and the folders the sentence
 * above the table names as everyone's ("and `errors/` and `policy/`, which everything may use").
 */
function mayImport(): Record<string, readonly string[]> {
  const section = docSection('docs/how-it-is-built.md', 'The folders');
  const everyones = /\(and ([^)]*), which everything may use\)/.exec(section.replace(/\s+/g, ' '))?.[1];
  if (everyones === undefined) throw new Error('docs/how-it-is-built.md no longer says which folders everything may use');
  const everyone = [...everyones.matchAll(/`(\w+)\/`/g)].map((match) => match[1]!);
  const rows = section
    .split('\n')
    .map((line) => /^\| `(\w+)\/` \|.*\| (.*?) ?\|$/.exec(line))
    .filter((row) => row !== null);
  if (rows.length === 0) throw new Error("docs/how-it-is-built.md's folder table has no rows");
  const named = new Map(rows.map(([, folder, cell]) => [folder!, cell!]));
  const resolve = (folder: string): string[] => {
    const cell = named.get(folder) ?? '';
    if (cell === 'nothing') return [];
    if (cell === 'everything') return ['*'];
    const excepted = /those `\w+\/` may but `(\w+)\/`/.exec(cell)?.[1];
    const folders = [...cell.matchAll(/`(\w+)\/`/g)].map((match) => match[1]!);
    const inherited = /those `(\w+)\/` may/.exec(cell)?.[1];
    const all = [...new Set([...(inherited ? resolve(inherited) : []), ...folders, ...everyone])];
    return all.filter((folder) => folder !== excepted);
  };
  return Object.fromEntries([...named.keys()].map((folder) => [folder, resolve(folder)]));
}

const MAY_IMPORT = mayImport();

describe('the layering of the folder table (docs/how-it-is-built.md)', () => {
  it('each folder imports only the folders below it', () => {
    const breaches: string[] = [];
    for (const [file, imports] of GRAPH) {
      const from = folderOf(file);
      const allowed = MAY_IMPORT[from];
      if (!allowed) {
        breaches.push(`${file}: folder ${from} is not in the table`);
        continue;
      }
      for (const { target } of imports) {
        if (!target.endsWith('.ts')) continue;
        const to = folderOf(target);
        if (to !== from && !allowed.includes('*') && !allowed.includes(to)) breaches.push(`${file} imports ${target}`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it("the gateway speaks the service's API through wire/, never through the sandbox (issue 43)", () => {
    expect(MAY_IMPORT.gateway).toContain('wire');
    expect(MAY_IMPORT.gateway).not.toContain('sandbox');
    const fromSandbox = [...GRAPH].filter(
      ([file, imports]) => file.startsWith('gateway/') && imports.some(({ target }) => target.startsWith('sandbox/')),
    );
    expect(fromSandbox.map(([file]) => file)).toEqual([]);
  });

  it('the pipeline does no file I/O', () => {
    const fileIo = [...GRAPH].filter(
      ([file, imports]) => file.startsWith('pipeline/') && imports.some(({ target }) => /^(node:)?fs(\/promises)?$/.test(target)),
    );
    expect(fileIo.map(([file]) => file)).toEqual([]);
  });

  it('has no import cycles between files', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'visiting');
      // Type-only imports vanish at run time, but a cycle through them still tangles the design.
      for (const { target } of GRAPH.get(file) ?? []) if (GRAPH.has(target)) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of GRAPH.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});

/** Functions a reader follows in one screen: over this many lines, a function becomes named stages (issue 34). */
const MAX_FUNCTION_LINES = 80;

/**
 * Every function of src/ longer than MAX_FUNCTION_LINES, as `file:line name (lines)`: but code
 * generated from the catalog (its first line says so) and a function that only returns a template
 * (a migration's SQL text).
 */
function longFunctions(): string[] {
  const long: string[] = [];
  for (const file of FILES) {
    const text = readFileSync(file, 'utf8');
    if (text.startsWith('// Generated')) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined && !ts.isTemplateLiteral(node.body)) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
        const name = node.name?.getText() ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : '(anonymous)');
        if (lines > MAX_FUNCTION_LINES) long.push(`${relative(SRC, file)}:${first + 1} ${name} (${lines})`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return long;
}

describe('the code a reader follows', () => {
  it(`has no function over ${MAX_FUNCTION_LINES} lines but generated code`, () => {
    expect(longFunctions()).toEqual([]);
  });
});
