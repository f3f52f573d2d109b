import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandbox = sandboxPerTest();

/**
 * Rows whose ZIP lost its leading zero (as a spreadsheet stores it: a number), each format holding
 * the ZIP the way it would: a workbook and JSONL as a number, a CSV as the digits.
 */
const ROWS: { address: string; city: string; state: string | undefined; zipcode: number }[] = [
  // Boston's 02113: its zero is put back.
  { address: '1 Hanover St', city: 'Boston', state: 'MA', zipcode: 2113 },
  // No Maryland ZIP starts with 0: padding it would buy a Massachusetts house (the reported bug).
  { address: '405 Dyer Ave', city: 'Reisterstown', state: 'MD', zipcode: 2113 },
  // A Massachusetts row whose padded ZIP is no Massachusetts ZIP.
  { address: '9 Elm St', city: 'Springfield', state: 'MA', zipcode: 9999 },
  // No state to tell whether a zero was lost.
  { address: '3 Oak St', city: 'Hartford', state: undefined, zipcode: 6103 },
  // A whole ZIP, and a ZIP+4 stored as a number (021401234 lost its zero: 21401234).
  { address: '43 Valmonte Plaza', city: 'Palos Verdes', state: 'CA', zipcode: 90274 },
  { address: '2 Mass Ave', city: 'Cambridge', state: 'MA', zipcode: 21401234 },
];
const HEADER = ['address', 'city', 'state', 'zipcode'] as const;

function writeCsv(path: string): void {
  const lines = ROWS.map((row) => HEADER.map((name) => row[name] ?? '').join(','));
  writeFileSync(path, `${HEADER.join(',')}\n${lines.join('\n')}\n`);
}

function writeJsonl(path: string): void {
  // A row without a state has no state key (JSON.stringify leaves out an undefined one).
  const lines = ROWS.map((row) => JSON.stringify(row));
  writeFileSync(path, `${lines.join('\n')}\n`);
}

async function writeWorkbook(path: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('homes');
  sheet.addRow([...HEADER]);
  for (const row of ROWS) sheet.addRow(HEADER.map((name) => row[name] ?? null));
  await workbook.xlsx.writeFile(path);
}

describe("a ZIP's lost leading zero", () => {
  it('is put back by one rule, the state, whether the rows come as CSV, JSONL or a workbook', async () => {
    const env = await sandbox.start();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-zip-formats-'));
    writeCsv(join(dir, 'homes.csv'));
    writeJsonl(join(dir, 'homes.jsonl'));
    await writeWorkbook(join(dir, 'homes.xlsx'));
    const results = [];
    for (const input of ['homes.csv', 'homes.jsonl', 'homes.xlsx']) {
      const output = join(dir, `${input}.out.csv`);
      const run = await runMain(['property', 'value', '--input', join(dir, input), '--output', output], { env });
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toMatch(/2 identifiers padded with the leading zero a spreadsheet had dropped \(rows 1, 6\)/);
      const records = parse<Record<string, string>>(readFileSync(output), { columns: true, bom: true });
      results.push(records.map((each) => [each._status, each['address_info.zipcode'], each._error]));
    }
    expect(results[0]).toEqual([
      ['ok', '02113', ''],
      [
        'invalid_input',
        '',
        'row 2: zipcode must be 5 digits, got "2113" (no MD ZIP starts with 0, so none was put back); correct the row or remove it',
      ],
      ['invalid_input', '', 'row 3: zipcode must be 5 digits, got "9999" (09999 is not a MA ZIP either); correct the row or remove it'],
      [
        'invalid_input',
        '',
        'row 4: zipcode must be 5 digits, got "6103" (a lost leading zero is put back only when the state is given); correct the row or remove it',
      ],
      ['ok', '90274', ''],
      ['ok', '02140', ''],
    ]);
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });

  it('at the zip level, which takes no state, is never guessed: the row says to give all 5 digits, from CSV and workbook alike', async () => {
    const env = await sandbox.start();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-zip-level-'));
    writeFileSync(join(dir, 'zips.csv'), 'zipcode\n2134\n90274\n');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('zips');
    for (const row of [['zipcode'], [2134], [90274]]) sheet.addRow(row);
    await workbook.xlsx.writeFile(join(dir, 'zips.xlsx'));
    for (const input of ['zips.csv', 'zips.xlsx']) {
      const output = join(dir, `${input}.out.csv`);
      const run = await runMain(['zip', 'details', '--input', join(dir, input), '--output', output], { env });
      expect(run.code, run.stderr).toBe(3);
      const records = parse<Record<string, string>>(readFileSync(output), { columns: true, bom: true });
      expect(records.map((each) => [each._status, each._error])).toEqual([
        [
          'invalid_input',
          'row 1: zipcode must be 5 digits, got "2134" (with no state to tell a lost leading zero by, give all 5 digits); correct the row or remove it',
        ],
        ['ok', ''],
      ]);
    }
  });
});
