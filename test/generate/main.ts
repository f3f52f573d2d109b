import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_FILES, render } from './generated-files.js';

/**
 * `npm run generate`: writes every file generated from the catalog (generated-files.ts), from the
 * repository's root, where npm runs its scripts. test/library/result-types.test.ts checks that
 * what is checked in is what this writes.
 */
const root = process.cwd();
for (const file of GENERATED_FILES) {
  const path = join(root, file.path);
  const rendered = await render(file, root);
  const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (rendered === before) {
    console.log(`${file.path}: unchanged`);
  } else {
    writeFileSync(path, rendered);
    console.log(`${file.path}: written`);
  }
}
