import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/**
 * CSVs as spreadsheets save them (test/fixtures/workbooks/make.sh: LibreOffice's exports of the
 * fixture workbook's first sheet), end to end: every row ok, ZIPs whole, passthrough text exactly
 * as the spreadsheet held it.
 */
const DIR = 'test/fixtures/workbooks';
interface Homes {
  header: string[];
  sheets: Record<string, (null | (string | number | null)[])[]>;
}
const HOMES = JSON.parse(readFileSync(join(DIR, 'homes.json'), 'utf8')) as Homes;
const MGET = ['mget', 'property/value,property/rental_value'];
const OWNERS = HOMES.sheets.Properties!.filter((row) => row !== null).map((row) => String(row[HOMES.header.indexOf('owner')]));
const ZIPS = ['90274', '06040', '02664', '05452', '21136'];

function written(path: string): Record<string, string>[] {
  return parse<Record<string, string>>(readFileSync(path), { columns: true, bom: true });
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'propdata-encodings-'));

describe('CSVs as spreadsheets save them', () => {
  const sandbox = sandboxPerTest();

  for (const { file, note, args } of [
    {
      file: 'windows-1252.csv',
      note: /^propdata: .*windows-1252\.csv is not UTF-8: reading it as windows-1252, as Excel saves a CSV/m,
      args: [],
    },
    { file: 'unicode-text.txt', note: undefined, args: [] },
    { file: 'sep-line.csv', note: /is not UTF-8: reading it as windows-1252/, args: [] },
    { file: 'windows-1252.csv', note: undefined, args: ['--encoding', 'cp1252'] },
  ]) {
    it(`${file}${args.length > 0 ? ` ${args.join(' ')}` : ''}: every row ok, passthrough text exact, ZIPs repaired`, async () => {
      const env = await sandbox.start();
      const output = join(tempDir(), 'out.csv');
      const run = await runMain([...MGET, '--input', join(DIR, file), '--output', output, ...args], { env });
      expect(run.code, run.stderr).toBe(0);
      for (const line of run.stderr.split('\n').filter((each) => each.trim() !== '')) expect(line).toMatch(/^(propdata: | {2})/);
      if (note) expect(run.stderr.match(new RegExp(note.source, 'gm'))).toHaveLength(1);
      else expect(run.stderr).not.toMatch(/not UTF-8/);
      if (file === 'sep-line.csv') {
        expect(run.stderr).toMatch(/^propdata: reading the CSV with the semicolon as its delimiter, as its first line sep=; says/m);
      }
      if (file === 'unicode-text.txt') expect(run.stderr).toMatch(/^propdata: reading the CSV with the tab as its delimiter/m);
      const records = written(output);
      expect(records.map((record) => record._status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      expect(records.map((record) => record.owner)).toEqual(OWNERS);
      expect(records.map((record) => record['address_info.zipcode'])).toEqual(ZIPS);
      expect(records.map((record) => record.note)).toEqual(['merged note', '', 'paid in €', 'after a blank row', 'last']);
    });
  }

  it('--encoding utf-8 on a Windows-1252 file: a row is refused only for bytes in a column that is sent', async () => {
    const env = await sandbox.start();
    const dir = tempDir();
    const input = join(dir, 'mixed.csv');
    writeFileSync(
      input,
      iconv.encode('address,zipcode,owner\r\n43 Valmonte Plaza,90274,José Müller\r\n244 S ALTADENA DRÉ,91107,Ann\r\n', 'windows-1252'),
    );
    const output = join(dir, 'out.csv');
    const run = await runMain([...MGET, '--input', input, '--output', output, '--encoding', 'utf-8'], { env });
    expect(run.code).toBe(3);
    const records = written(output);
    expect(records.map((record) => record._status)).toEqual(['ok', 'invalid_input']);
    expect(records[0]!.owner).toBe('Jos\uFFFD M\uFFFDller');
    expect(records[1]!._error).toMatch(
      /^row 2: address contains bytes that are not valid UTF-8; choose the file's encoding with --encoding/,
    );
  });

  it('refuses an encoding it does not know, and --encoding for a workbook (exit 2)', async () => {
    const env = await sandbox.start();
    const unknown = await runMain(['property', 'value', '--input', join(DIR, 'windows-1252.csv'), '--encoding', 'klingon'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--encoding klingon: not an encoding propdata knows/);
    const workbook = await runMain(['property', 'value', '--input', join(DIR, 'openpyxl.xlsx'), '--encoding', 'latin1'], { env });
    expect(workbook.code).toBe(2);
    expect(workbook.stderr).toMatch(/--encoding chooses the encoding of a CSV input/);
  });
});
