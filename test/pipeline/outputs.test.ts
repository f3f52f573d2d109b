import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const sandbox = sandboxPerTest();
let scripted: ScriptedServer | undefined;
afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
});

function inputFile(content: string, name = 'in.csv'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'propdata-outputs-')), name);
  writeFileSync(path, content);
  return path;
}

type Row = Record<string, string>;
const parseCsv = (text: string | Buffer): Row[] => parse<Row>(text, { columns: true, bom: true });

describe('batch output', () => {
  it('fixes the CSV header from the catalog before any answer: an all-invalid input still gets every column', async () => {
    const env = await sandbox.start();
    const input = inputFile('address,zipcode\n,21201\n1 Main St,ABCDE\n');
    const result = await runMain(['property', 'rental_value', '-i', input], { env });
    expect(result.code).toBe(3);
    const [header] = result.stdout.split('\n');
    const schema = findEndpoint('property/rental_value')!.result!;
    const fields = schema.type === 'object' ? Object.keys(schema.fields) : [];
    expect(header!.split(',')).toEqual(
      expect.arrayContaining([
        'address',
        'zipcode',
        '_row',
        '_status',
        '_error',
        'address_info.slug',
        'property/rental_value.api_code',
        ...fields.map((field) => `property/rental_value.${field}`),
      ]),
    );
    const rows = parseCsv(result.stdout);
    expect(rows.map((row) => row._status)).toEqual(['invalid_input', 'invalid_input']);
    expect(rows[1]!._error).toMatch(/row 2: zipcode must be 5 digits, got "ABCDE"/);
    expect(sandbox.current.usage().components).toBe(0);
  });

  it('marks items ok, partial or no_content from their sections', async () => {
    const env = await sandbox.start();
    const lines = ['address,zipcode'];
    for (let i = 1; i <= 40; i++) lines.push(`${i} Elm St,21201`);
    lines.push('9 NOMATCH Way,21201');
    const result = await runMain(['mget', 'property/value,property/on_market', '-i', inputFile(`${lines.join('\n')}\n`)], { env });
    expect(result.code).toBe(0);
    const rows = parseCsv(result.stdout);
    for (const row of rows) {
      const codes = [row['property/value.api_code'], row['property/on_market.api_code']];
      const expected = codes.every((code) => code === '0') ? 'ok' : codes.some((code) => code === '0') ? 'partial' : 'no_content';
      expect(row._status, JSON.stringify(row)).toBe(expected);
    }
    expect(new Set(rows.map((row) => row._status))).toEqual(new Set(['ok', 'partial', 'no_content']));
    expect(rows.at(-1)).toMatchObject({ _status: 'no_content', 'address_info.status.match': 'false' });
  });

  it('records a batch that keeps failing as error records with the cause, and exits 3', async () => {
    scripted = await startScriptedServer(() => ({
      status: 503,
      body: '<html>Service Unavailable</html>',
      headers: { 'content-type': 'text/html' },
    }));
    const env = { PROPDATA_BASE_URL: scripted.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 'a-secret-value' };
    const input = inputFile('address,zipcode,keep\n1 Main St,21201,a\n2 Main St,21201,b\n');
    const result = await runMain(['property', 'value', '-i', input, '--max-retries', '1'], { env });
    expect(result.code).toBe(3);
    const rows = parseCsv(result.stdout);
    expect(rows.map((row) => [row.keep, row._status])).toEqual([
      ['a', 'error'],
      ['b', 'error'],
    ]);
    expect(rows[0]!._error).toMatch(/503/);
    expect(scripted.requests).toHaveLength(2);
    expect(result.stderr).toMatch(/2 error/);
  });

  it('streams a JSON array to stdout with the chunk members as received, meta included', async () => {
    const env = await sandbox.start();
    const input = inputFile(
      '{"address":"43 Valmonte Plaza","zipcode":"90274","meta":"id-1"}\n{"address":"","zipcode":"90274","meta":"id-2"}\n',
      'in.jsonl',
    );
    const result = await runMain(['property', 'value', '-i', input, '--format', 'json'], { env });
    expect(result.code).toBe(3);
    const records = JSON.parse(result.stdout);
    expect(Object.keys(records[0]).slice(0, 4)).toEqual(['_row', '_status', '_error', '_input']);
    expect(records[0]).toMatchObject({ _row: 1, _status: 'ok', _error: null, meta: 'id-1' });
    expect(records[0]['property/value']).toMatchObject({ api_code: 0, api_code_description: 'ok' });
    expect(records[1]).toMatchObject({ _row: 2, _status: 'invalid_input', _input: { address: '', zipcode: '90274', meta: 'id-2' } });
  });

  it('writes the echoed meta in a _meta column and honours --map and --meta-column', async () => {
    const env = await sandbox.start();
    const input = inputFile('where,post,ref\n43 Valmonte Plaza,90274,r-1\n');
    const result = await runMain(
      ['property', 'value', '-i', input, '--map', 'where=address', '--map', 'post=zipcode', '--meta-column', 'ref'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(parseCsv(result.stdout)[0]).toMatchObject({ where: '43 Valmonte Plaza', ref: 'r-1', _meta: 'r-1', _status: 'ok' });
  });

  it('stops at an unclosed quote after writing every row before it, and says the output is partial', async () => {
    const env = await sandbox.start();
    const lines = ['address,zipcode,note'];
    for (let i = 1; i <= 30; i++) lines.push(`${i} Main St,21201,n${i}`);
    lines.push('31 Main St,21201,"never closed', '32 Main St,21201,x');
    const output = join(mkdtempSync(join(tmpdir(), 'propdata-outputs-')), 'out.csv');
    const result = await runMain(['property', 'value', '-i', inputFile(`${lines.join('\n')}\n`), '-o', output, '--batch-size', '7'], {
      env,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/line 32: a quoted field opened in this record is never closed/);
    expect(result.stderr).toMatch(/output is partial \(rows from 31 on are missing\)/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(parseCsv(readFileSync(output)).map((row) => row.note)).toEqual(Array.from({ length: 30 }, (_, i) => `n${i + 1}`));
  });

  it('keeps stdout for records: progress and the summary go to stderr, and --quiet leaves a clean run one line', async () => {
    const env = await sandbox.start();
    const input = inputFile('address,zipcode\n1 Main St,21201\n2 Main St,21201\n');
    const shown = await runMain(['property', 'value', '-i', input], { env, tty: true });
    expect(parseCsv(shown.stdout)).toHaveLength(2);
    expect(shown.stderr).toMatch(/2\/2 rows/);
    expect(shown.stderr).not.toMatch(/NaN|Infinity|\bNF|NULL/);
    expect(shown.stderr).toMatch(/completed: /);
    const quiet = await runMain(['property', 'value', '-i', input, '-q'], { env, tty: true });
    expect(quiet.code).toBe(0);
    expect(parseCsv(quiet.stdout)).toHaveLength(2);
    expect(quiet.stderr).toMatch(/^propdata: completed: [^;]+; bought \d+\.\d\d USD at list price \(2 components\); [^\n]+\n$/);
  });
});
