import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The store as plain JavaScript, for child processes (vitest transpiles only its own process):
 * src/store, src/throttle (the shared pacer's rules), src/policy, src/errors, and src/model with src/catalog (the chunk's frame, the section keys), which is all it loads at run time, each file transpiled on its own.
 * node_modules is linked beside it so that better-sqlite3 resolves. Returns the directory holding
 * store/ and errors/.
 */
export function compileStore(): string {
  const out = mkdtempSync(join(tmpdir(), 'propdata-store-js-'));
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
  for (const folder of ['store', 'throttle', 'policy', 'errors', 'model', 'catalog']) {
    mkdirSync(join(out, folder));
    // Its subfolders too: the store's drivers (store/sqlite/).
    const names = readdirSync(join(ROOT, 'src', folder), { recursive: true, encoding: 'utf8' });
    for (const name of names.filter((file) => file.endsWith('.ts'))) {
      const source = readFileSync(join(ROOT, 'src', folder, name), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      });
      const target = join(out, folder, name.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, outputText);
    }
  }
  writeFileSync(join(out, 'package.json'), '{"type":"module"}');
  return out;
}
