import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { MAX_RECORD_BYTES } from '../../src/input/record-size.js';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'propdata-broken-'));
const MGET = ['mget', 'property/value,property/rental_value'];

function written(path: string): Record<string, string>[] {
  return parse<Record<string, string>>(readFileSync(path), { columns: true, bom: true });
}

/** A workbook of many distinct strings, as a real export has (the shared strings part is most of it). */
async function manyStrings(path: string, rows: number): Promise<void> {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
  const sheet = book.addWorksheet('homes');
  sheet.addRow(['address', 'zipcode', 'owner']).commit();
  for (let i = 1; i <= rows; i++) sheet.addRow([`${i} Main St`, '90274', `Owner number ${i}`]).commit();
  sheet.commit();
  await book.commit();
}

/** Three rows, the second with a cell longer than any record propdata reads. */
async function hugeCell(path: string, sharedStrings: boolean): Promise<void> {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: sharedStrings });
  const sheet = book.addWorksheet('homes');
  sheet.addRow(['address', 'zipcode', 'note']).commit();
  sheet.addRow(['43 Valmonte Plaza', '90274', 'fine']).commit();
  sheet.addRow(['244 S ALTADENA DR', '91107', 'x'.repeat(MAX_RECORD_BYTES + 1024)]).commit();
  sheet.addRow(['399 HAMILTON AVE', '91106', 'after']).commit();
  sheet.commit();
  await book.commit();
}

describe('broken files', () => {
  const sandbox = sandboxPerTest();

  it('a workbook cut short says it is damaged (exit 1), for a run and an estimate alike', async () => {
    const env = await sandbox.start();
    const dir = tempDir();
    const whole = join(dir, 'whole.xlsx');
    await manyStrings(whole, 20_000);
    const bytes = readFileSync(whole);
    for (const share of [0.5, 0.8, 0.95]) {
      const cut = join(dir, `cut-${share}.xlsx`);
      writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * share)));
      const output = join(dir, `out-${share}.csv`);
      for (const args of [
        [...MGET, '--output', output],
        ['estimate', 'property/value'],
      ]) {
        const run = await runMain([...args, '--input', cut], { env });
        expect(run.code, run.stderr).toBe(1);
        expect(run.stderr).toMatch(
          /^propdata: cannot read .*cut-0\.\d+\.xlsx as an xlsx workbook: it is damaged or cut short \(.*\); save or copy it again/,
        );
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
      }
      expect(existsSync(output)).toBe(false);
    }
    expect(sandbox.current.usage().components).toBe(0);
  });

  for (const sharedStrings of [false, true]) {
    it(`a cell longer than ${MAX_RECORD_BYTES / 1024 / 1024} MB (${sharedStrings ? 'a shared string' : 'inline'}) is refused naming its row; the rows before it are written`, async () => {
      const env = await sandbox.start();
      const dir = tempDir();
      const input = join(dir, 'huge.xlsx');
      await hugeCell(input, sharedStrings);
      const output = join(dir, 'out.csv');
      const run = await runMain([...MGET, '--input', input, '--output', output], { env });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/sheet row 3: a cell holds more than 32 MB of text.* Rows before it were processed/);
      expect(written(output).map((record) => [record.address, record._status])).toEqual([['43 Valmonte Plaza', 'ok']]);
    });
  }

  it('a JSONL file whose second line is longer than any record: row 1 is written, as the message says', async () => {
    const env = await sandbox.start();
    const dir = tempDir();
    const input = join(dir, 'long.jsonl');
    const long = JSON.stringify({ address: '244 S ALTADENA DR', zipcode: '91107', note: 'x'.repeat(MAX_RECORD_BYTES + 1024) });
    writeFileSync(input, `${JSON.stringify({ address: '43 Valmonte Plaza', zipcode: '90274' })}\n${long}\n`);
    const output = join(dir, 'out.csv');
    const run = await runMain([...MGET, '--input', input, '--output', output], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 2: the record starting here is longer than 32 MB \(row 2\).* Rows before it were processed/);
    expect(written(output).map((record) => [record.address, record._status])).toEqual([['43 Valmonte Plaza', 'ok']]);
  });
});
