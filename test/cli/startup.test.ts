import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** A module hook naming every module loaded through import on stderr: ESM packages (conf, ora) never enter require's cache. */
const REPORT_IMPORTS = `
  import { writeSync } from 'node:fs';
  export async function load(url, context, nextLoad) {
    writeSync(2, 'imported ' + url + '\\n');
    return nextLoad(url, context);
  }
`;

const packageOf = (file: string): string => {
  const [scopeOrName, name] = file.split('node_modules/').pop()!.split('/');
  return scopeOrName!.startsWith('@') ? `${scopeOrName}/${name}` : scopeOrName!;
};

/**
 * The packages a command loaded, imported or required, after it ran, in a fresh process (npm test
 * builds dist/ first). Its store is the test run's (vitest.config.ts), never the user's own.
 */
function packagesLoadedBy(argv: string[], home = process.env.PROPDATA_HOME): string[] {
  const script = `
    import { createRequire, register } from 'node:module';
    import { PassThrough } from 'node:stream';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(REPORT_IMPORTS)}));
    const { main } = await import(${JSON.stringify(MAIN)});
    const sink = new PassThrough();
    sink.resume();
    const code = await main(${JSON.stringify(argv)}, { stdin: process.stdin, stdout: sink, stderr: sink, env: ${JSON.stringify({ PROPDATA_HOME: home })} });
    const Module = createRequire(import.meta.url)('node:module');
    console.log(JSON.stringify({ code, required: Object.keys(Module._cache) }));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  const { code, required } = JSON.parse(child.stdout) as { code: number; required: string[] };
  expect(code, `${argv.join(' ')}: ${child.stderr}`).toBe(0);
  const imported = [...child.stderr.matchAll(/^imported (\S+)$/gm)].map((match) => match[1]!);
  const files = [...required, ...imported].filter((file) => file.includes('node_modules/'));
  return [...new Set(files.map(packageOf))];
}

describe('start-up', () => {
  it('--help, listings and the completion script load no HTTP client, CSV parser, database, workbook, config or terminal library', () => {
    for (const argv of [
      ['--help'],
      ['endpoints'],
      ['property', 'value', '--help'],
      ['help', 'property', 'value'],
      ['completion', 'bash'],
    ]) {
      const loaded = packagesLoadedBy(argv);
      expect(loaded, argv.join(' ')).toContain('commander');
      for (const heavy of ['undici', 'csv-parse', 'better-sqlite3', 'pg', 'exceljs', 'conf', 'ora', 'cli-progress']) {
        expect(loaded, argv.join(' ')).not.toContain(heavy);
      }
    }
  });

  it('a one-off loads nothing a batch or a terminal needs, nor the store unless --max-age, --max-cost-month or a job beside it asks it first', () => {
    const oneOff = ['property', 'value', '--address', '405 DYER AVE', '--zipcode', '21136', '--json', '--sandbox'];
    // A home of its own: the test run's store is open in other tests' processes, as a running job's is.
    const home = mkdtempSync(join(tmpdir(), 'propdata-startup-home-'));
    const loaded = packagesLoadedBy(oneOff, home);
    // Its one request goes over node's own http: undici's pool is a batch's. Its record is left beside the store.
    for (const heavy of ['undici', 'better-sqlite3', 'pg', 'csv-parse', 'exceljs', 'conf', 'ora', 'cli-progress', 'csv-stringify'])
      expect(loaded).not.toContain(heavy);
    const withMaxAge = packagesLoadedBy([...oneOff, '--max-age', '1d'], home);
    expect(withMaxAge).toContain('better-sqlite3');
    // Another process has the store open (its write-ahead log stands beside it): a job to pace and claim beside.
    writeFileSync(join(home, 'propdata.db-wal'), '');
    expect(packagesLoadedBy(oneOff, home)).toContain('better-sqlite3');
    // node-postgres only for a store on PostgreSQL.
    expect(withMaxAge).not.toContain('pg');
  });

  it("a batch sends through undici's pool, which keeps its sockets from one request to the next", () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-startup-'));
    writeFileSync(join(dir, 'in.csv'), 'address,zipcode\n405 DYER AVE,21136\n');
    const batch = ['property', 'value', '--input', join(dir, 'in.csv'), '--output', join(dir, 'out.csv'), '--sandbox', '--no-store'];
    expect(packagesLoadedBy(batch)).toContain('undici');
  });
});
