import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { neutraliseFormula } from '../../src/output/excel-guard.js';
import { openOutput, outputFormatFor, type OutputSettings } from '../../src/output/open-output.js';
import type { OutputRecord } from '../../src/model/record.js';

const record = (row: number, input: Record<string, string>): OutputRecord => ({ row, status: 'invalid_input', error: 'bad', input });

async function writeAll(settings: Partial<OutputSettings>, records: OutputRecord[]): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'propdata-out-')), 'out');
  const writer = await openOutput({
    path,
    stdout: new PassThrough(),
    inputColumns: ['name'],
    level: 'property',
    sections: ['property/value'],
    withMeta: false,
    append: false,
    excel: false,
    ...settings,
  });
  for (const each of records) await writer.write(each);
  await writer.close();
  return readFileSync(path, 'utf8');
}

describe('output writers', () => {
  it('choose the format from --format, then the extension, else CSV', () => {
    expect(outputFormatFor('a.json', undefined)).toBe('json');
    expect(outputFormatFor('a.NDJSON', undefined)).toBe('jsonl');
    expect(outputFormatFor('a.txt', undefined)).toBe('csv');
    expect(outputFormatFor(undefined, undefined)).toBe('csv');
    expect(outputFormatFor('a.json', 'jsonl')).toBe('jsonl');
  });

  it('write a JSON array that parses with no records and with many', async () => {
    expect(JSON.parse(await writeAll({ format: 'json' }, []))).toEqual([]);
    const parsed = JSON.parse(await writeAll({ format: 'json' }, [record(1, { name: 'a' }), record(2, { name: 'b' })]));
    expect(parsed).toEqual([
      { _row: 1, _status: 'invalid_input', _error: 'bad', _input: { name: 'a' } },
      { _row: 2, _status: 'invalid_input', _error: 'bad', _input: { name: 'b' } },
    ]);
  });

  it('write JSONL one record a line, and CSV with its header once (none when appending)', async () => {
    expect((await writeAll({ format: 'jsonl' }, [record(1, { name: 'a' })])).split('\n')).toHaveLength(2);
    const csv = await writeAll({ format: 'csv' }, [record(1, { name: 'a' })]);
    expect(csv.split('\n')[0]).toMatch(/^name,_row,_status,_error,address_info\./);
    expect(await writeAll({ format: 'csv', append: true }, [record(1, { name: 'a' })])).toMatch(/^a,1,invalid_input,bad,/);
  });

  it('with --excel, start with a BOM and neutralise formula cells but not plain numbers', async () => {
    expect(['=SUM(A1)', '+1 555', '-x', '@cmd', '\tx', '\rx'].map(neutraliseFormula)).toEqual([
      "'=SUM(A1)",
      "'+1 555",
      "'-x",
      "'@cmd",
      "'\tx",
      "'\rx",
    ]);
    expect(['-12.5', '+3', '1e5', 'plain', ''].map(neutraliseFormula)).toEqual(['-12.5', '+3', '1e5', 'plain', '']);
    // Full-width forms that some spreadsheets normalize to = + - @ before evaluating.
    expect(['\uFF1D1+1', '\uFF0B1', '\uFF0Dx', '\uFF20cmd'].map(neutraliseFormula)).toEqual([
      "'\uFF1D1+1",
      "'\uFF0B1",
      "'\uFF0Dx",
      "'\uFF20cmd",
    ]);
    const csv = await writeAll({ format: 'csv', excel: true }, [record(1, { name: '=HYPERLINK("x")' })]);
    expect(csv.startsWith('\ufeffname,')).toBe(true);
    expect(csv).toContain(`"'=HYPERLINK(""x"")",1,`);
  });

  it('report an output it cannot open as one clear error', async () => {
    const missingDir = join(tmpdir(), 'propdata-no-such-dir', 'out.csv');
    await expect(writeAll({ path: missingDir }, [])).rejects.toThrow(/cannot write .*out\.csv: its directory does not exist/);
  });
});
