import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering the README's "How it is built" table states, checked on the source: which folder
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

/** What engine/ may import: the library and the gateway may too, and engine/ itself. */
const ENGINE_MAY_IMPORT = [
  'catalog',
  'model',
  'config',
  'throttle',
  'input',
  'batching',
  'client',
  'pipeline',
  'output',
  'store',
  'sandbox',
  'errors',
];

/** What each folder may import from the project, as the README says: every folder may import errors/ and policy/, which import nothing. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  errors: [],
  policy: [],
  options: ['errors'],
  catalog: ['errors'],
  model: ['catalog', 'errors'],
  config: ['errors'],
  throttle: ['errors'],
  input: ['catalog', 'model', 'errors'],
  batching: ['catalog', 'model', 'input', 'errors'],
  client: ['catalog', 'model', 'throttle', 'config', 'errors'],
  output: ['catalog', 'model', 'input', 'errors'],
  resume: ['catalog', 'model', 'output', 'errors'],
  pipeline: ['catalog', 'model', 'input', 'batching', 'client', 'throttle', 'errors'],
  store: ['catalog', 'model', 'throttle', 'config', 'errors'],
  sandbox: ['catalog', 'model', 'options', 'errors'],
  engine: ENGINE_MAY_IMPORT,
  library: [...ENGINE_MAY_IMPORT, 'engine'],
  gateway: [...ENGINE_MAY_IMPORT, 'engine', 'options'],
  cli: ['*'],
};

describe('the layering in the README', () => {
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
        const everyones = to === 'policy' && from !== 'errors';
        if (to !== from && !everyones && !allowed.includes('*') && !allowed.includes(to)) breaches.push(`${file} imports ${target}`);
      }
    }
    expect(breaches).toEqual([]);
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
