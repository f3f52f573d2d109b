import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { levelCallsSource } from './level-calls.js';
import { resultTypesSource } from './result-types.js';

/** A file of src/ rendered from the catalog: checked in, so the library needs no catalog at run time and a change shows in its diff. */
export interface GeneratedFile {
  /** From the repository's root. */
  path: string;
  /** The module that renders it, named in its first line. */
  generator: string;
  /** Its text before formatting, from the generated files' first lines. */
  source(header: string): string;
}

/** How a generated file is made again. */
export const REGENERATE = 'npm run generate';

export const GENERATED_FILES: readonly GeneratedFile[] = [
  { path: 'src/library/result-types.ts', generator: 'test/generate/result-types.ts', source: resultTypesSource },
  { path: 'src/library/level-calls.ts', generator: 'test/generate/level-calls.ts', source: levelCallsSource },
];

const header = (file: GeneratedFile) =>
  `// Generated from the catalog (src/catalog/) by ${file.generator}: do not edit.\n// Regenerate: ${REGENERATE}`;

/** `file` as the catalog makes it now, formatted as `prettier --check` wants it; `root` is the repository's. */
export async function render(file: GeneratedFile, root: string): Promise<string> {
  const filepath = join(root, file.path);
  const options = await resolveConfig(filepath);
  return format(file.source(header(file)), { ...options, filepath });
}
