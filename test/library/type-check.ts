import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Where the checked code pretends to live: beside this file, so its relative imports read as they would here. */
const VIRTUAL_FILE = fileURLToPath(new URL('./type-checked.ts', import.meta.url));

/** Only ECMAScript's own declarations: node's are not needed, and leaving them out keeps the check fast. */
const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: [],
};

/**
 * The compiler's complaints about `code`, one TypeScript module that is never written to disk:
 * how a test asks whether values the sandbox sent fit the generated types. Each names the line of
 * `code` it is about, quoted.
 */
export function typeErrors(code: string): string[] {
  const host = ts.createCompilerHost(OPTIONS);
  const [getSourceFile, fileExists, readFile] = [host.getSourceFile.bind(host), host.fileExists.bind(host), host.readFile.bind(host)];
  host.getSourceFile = (name, language, ...rest) =>
    name === VIRTUAL_FILE ? ts.createSourceFile(name, code, language) : getSourceFile(name, language, ...rest);
  host.fileExists = (name) => name === VIRTUAL_FILE || fileExists(name);
  host.readFile = (name) => (name === VIRTUAL_FILE ? code : readFile(name));
  const program = ts.createProgram([VIRTUAL_FILE], OPTIONS, host);
  const lines = code.split('\n');
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file?.fileName !== VIRTUAL_FILE || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `line ${line + 1} (${lines[line]!.trim()}): ${message}`;
  });
}
