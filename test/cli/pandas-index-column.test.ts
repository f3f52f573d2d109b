import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandbox = sandboxPerTest();

describe("a pandas DataFrame's index column (to_csv writes it with an empty header)", () => {
  it('is passed through under the name pandas reads it by, Unnamed: 0, not a name of our own', async () => {
    const env = await sandbox.start();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-pandas-'));
    // As `df.to_csv('homes.csv')` writes a frame of two rows: the index first, its header empty.
    writeFileSync(join(dir, 'homes.csv'), ',address,zipcode\n0,43 Valmonte Plaza,90274\n1,244 S Altadena Dr,91107\n');
    const output = join(dir, 'values.csv');
    const run = await runMain(['property', 'value', '--input', join(dir, 'homes.csv'), '--output', output], { env });
    expect(run.code, run.stderr).toBe(0);
    const text = readFileSync(output, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^Unnamed: 0,address,zipcode,_row,_status,/);
    const records = parse<Record<string, string>>(text, { columns: true });
    expect(records.map((record) => [record['Unnamed: 0'], record._status])).toEqual([
      ['0', 'ok'],
      ['1', 'ok'],
    ]);
  });
});
