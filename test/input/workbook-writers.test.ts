import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/**
 * Workbooks as the programs analysts use write them (test/fixtures/workbooks/make.sh made them
 * with each program), read end to end: every row answered, identifiers whole, the text that is
 * passed through exactly as the workbook has it.
 */
const DIR = 'test/fixtures/workbooks';
interface Homes {
  header: string[];
  sheets: Record<string, (null | (string | number | null)[])[]>;
}
const HOMES = JSON.parse(readFileSync(join(DIR, 'homes.json'), 'utf8')) as Homes;

/** Writers that store a formula's value as they save it; openpyxl cannot compute one (Excel does on opening). */
const WRITERS: { file: string; cachesFormulas: boolean }[] = [
  { file: 'openpyxl.xlsx', cachesFormulas: false },
  { file: 'pandas.xlsx', cachesFormulas: true },
  { file: 'xlsxwriter.xlsx', cachesFormulas: true },
  { file: 'libreoffice.xlsx', cachesFormulas: true },
  { file: 'libreoffice.xlsm', cachesFormulas: true },
  { file: 'sheetjs.xlsx', cachesFormulas: true },
  { file: 'sheetjs-shared-strings-typed-dates.xlsx', cachesFormulas: true },
  { file: 'exceljs.xlsx', cachesFormulas: true },
  { file: 'exceljs-stream.xlsx', cachesFormulas: true },
  { file: 'no-cell-references.xlsx', cachesFormulas: false },
];

/** What each data row of a sheet reads as: the text a CSV export of it holds. */
function expectedRows(sheet: string, cachesFormulas: boolean): Record<string, string>[] {
  const at = (name: string) => HOMES.header.indexOf(name);
  return HOMES.sheets[sheet]!.filter((row) => row !== null).map((row) => {
    const text = (name: string) => (row[at(name)] === null ? '' : String(row[at(name)]));
    return {
      ...Object.fromEntries(HOMES.header.map((name) => [name, text(name)])),
      price_k: cachesFormulas ? String(Number(text('price')) / 1000) : '',
      // A merged cell's value is in its first cell; the others are empty (text('note') is '').
    };
  });
}

function records(path: string): Record<string, string>[] {
  return parse<Record<string, string>>(readFileSync(path), { columns: true, bom: true });
}

/** stderr holds propdata's own lines only: no library's warning, no stack trace. */
function expectOwnLines(stderr: string): void {
  for (const line of stderr.split('\n').filter((each) => each.trim() !== '')) expect(line).toMatch(/^(propdata: | {2})/);
}

describe('workbooks from every common writer', () => {
  const sandbox = sandboxPerTest();

  for (const { file, cachesFormulas } of WRITERS) {
    it(`${file}: every row ok, ZIPs whole, passthrough text, dates and formulas' values as saved, on each sheet`, async () => {
      const env = await sandbox.start();
      const dir = mkdtempSync(join(tmpdir(), 'propdata-writers-'));
      const runs = [
        { sheet: 'Properties', args: [] },
        { sheet: 'Properties', args: ['--sheet', 'Properties'] },
        { sheet: 'More homes', args: ['--sheet', 'More homes'] },
        { sheet: 'More homes', args: ['--sheet', '2'] },
      ];
      for (const [i, { sheet, args }] of runs.entries()) {
        const output = join(dir, `out${i}.csv`);
        const run = await runMain(
          ['mget', 'property/value,property/rental_value', '--input', join(DIR, file), '--output', output, ...args],
          { env },
        );
        expect(run.code, run.stderr).toBe(0);
        expectOwnLines(run.stderr);
        // Every writer stored the ZIPs as numbers: 3 lost a zero on the first sheet, 1 on the
        // second, each put back by its row's state (CT, MA, VT), as a CSV's would be.
        expect(run.stderr).toMatch(
          sheet === 'Properties'
            ? /^ {2}3 identifiers padded with the leading zero a spreadsheet had dropped \(rows 2, 3, 4\)$/m
            : /^ {2}1 identifiers padded with the leading zero a spreadsheet had dropped \(rows 2\)$/m,
        );
        const written = records(output);
        expect(written.map((record) => record._status)).toEqual(written.map(() => 'ok'));
        expect(written.map((record) => Object.fromEntries(HOMES.header.map((name) => [name, record[name]])))).toEqual(
          expectedRows(sheet, cachesFormulas),
        );
        // The input column is passed through as the workbook holds it; the ZIP sent and answered is whole.
        expect(written.map((record) => record['address_info.zipcode'])).toEqual(
          expectedRows(sheet, cachesFormulas).map((row) => row.zipcode!.padStart(5, '0')),
        );
      }
    });
  }

  it('names the sheets there are, the same way whichever way --sheet names none', async () => {
    const env = await sandbox.start();
    for (const sheet of ['Nope', '3']) {
      const run = await runMain(['property', 'value', '--input', join(DIR, 'openpyxl.xlsx'), '--sheet', sheet], { env });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        new RegExp(`--sheet ${sheet}: .*openpyxl\\.xlsx has no such sheet; its sheets are "Properties", "More homes"`),
      );
    }
  });
});
