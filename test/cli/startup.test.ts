import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** The packages a command loaded, after it ran, in a fresh process (npm test builds dist/ first). */
function packagesLoadedBy(argv: string[]): string[] {
  const script = `
    import { createRequire } from 'node:module';
    import { PassThrough } from 'node:stream';
    const { main } = await import(${JSON.stringify(MAIN)});
    const sink = new PassThrough();
    sink.resume();
    await main(${JSON.stringify(argv)}, { stdin: process.stdin, stdout: sink, stderr: sink, env: {} });
    const Module = createRequire(import.meta.url)('node:module');
    const names = Object.keys(Module._cache).filter((file) => file.includes('node_modules')).map((file) => file.split('node_modules/').pop().split('/')[0]);
    console.log(JSON.stringify([...new Set(names)]));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
}

describe('start-up', () => {
  it('--help and listings load no HTTP client, database, workbook or config library', () => {
    for (const argv of [['--help'], ['endpoints'], ['property', 'value', '--help']]) {
      const loaded = packagesLoadedBy(argv);
      for (const heavy of ['undici', 'better-sqlite3', 'exceljs', 'conf']) expect(loaded, argv.join(' ')).not.toContain(heavy);
    }
  });
});
