import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanOutput } from '../../src/resume/output-scan.js';
import { tempDir } from './records.js';

const COLUMNS = ['a'];
const HEADER = 'a,_row,_status,_error\n';
const BY_HAND = 'restore the file or run without --resume to start over';

function file(content: string, name = 'out.csv'): string {
  const path = join(tempDir(), name);
  writeFileSync(path, content);
  return path;
}

const csv = (content: string) => scanOutput(file(content), 'csv', COLUMNS);
const jsonl = (content: string) => scanOutput(file(content, 'out.jsonl'), 'jsonl', COLUMNS);
const counts = (byStatus: Partial<Record<string, number>> = {}) => ({
  ok: 0,
  partial: 0,
  no_content: 0,
  invalid_input: 0,
  error: 0,
  not_sent: 0,
  ...byStatus,
});
const line = (row: number, status = 'ok') => `${JSON.stringify({ _row: row, _status: status, _error: null, _input: { a: 'x' } })}\n`;

describe('scanOutput', () => {
  it('checks every CSV record, quoted line breaks included, lists the rows to send again in order and counts the statuses', async () => {
    const content = `${HEADER}"x\ny",1,ok,\nz,2,error,boom\n"a,""b""",3,partial,\nw,4,not_sent,stop\n`;
    expect(await csv(content)).toEqual({
      hasHeader: true,
      records: 4,
      errorRows: [2, 4],
      byStatus: counts({ ok: 1, error: 1, partial: 1, not_sent: 1 }),
      completeBytes: Buffer.byteLength(content),
    });
  });

  it('reads a header that starts with the --excel byte order mark', async () => {
    const content = `\ufeff${HEADER}x,1,ok,\n`;
    expect(await csv(content)).toMatchObject({ records: 1, completeBytes: Buffer.byteLength(content) });
  });

  it('stops before a torn last CSV record, even one torn inside quotes after a line break', async () => {
    const whole = `${HEADER}x,1,ok,\n`;
    expect(await csv(`${whole}y,2,o`)).toMatchObject({ records: 1, completeBytes: whole.length });
    expect(await csv(`${whole}"y\n`)).toMatchObject({ records: 1, completeBytes: whole.length });
  });

  it('knows a CSV file with no whole header', async () => {
    expect(await csv('a,_r')).toEqual({ hasHeader: false, records: 0, errorRows: [], byStatus: counts(), completeBytes: 0 });
    expect(await csv('')).toEqual({ hasHeader: false, records: 0, errorRows: [], byStatus: counts(), completeBytes: 0 });
  });

  it('refuses a deleted line, naming the file and the record', async () => {
    const path = file(`${HEADER}x,1,ok,\nx,3,ok,\n`);
    await expect(scanOutput(path, 'csv', COLUMNS)).rejects.toThrow(
      `${path} record 2 has _row 3: a line was removed or added by hand; ${BY_HAND}`,
    );
  });

  it('refuses a duplicated line', async () => {
    await expect(csv(`${HEADER}x,1,ok,\nx,2,ok,\nx,2,ok,\nx,3,ok,\n`)).rejects.toThrow(/record 3 has _row 2: a line was removed or added/);
  });

  it('refuses an extra blank line at the end, in CSV and in JSONL', async () => {
    await expect(csv(`${HEADER}x,1,ok,\n\n`)).rejects.toThrow(/record 2 is a blank line: a line was added by hand/);
    await expect(jsonl(`${line(1)}\n`)).rejects.toThrow(/record 2 is a blank line/);
  });

  it('refuses records with other cells or statuses than propdata writes, and a header of other columns', async () => {
    await expect(csv(`${HEADER}x,1,ok\n`)).rejects.toThrow(/record 1 has 3 cells where the header has 4/);
    await expect(csv(`${HEADER}x,1,fine,\n`)).rejects.toThrow(/record 1 has _status "fine"/);
    await expect(csv(`b,_row,_status,_error\nx,1,ok,\n`)).rejects.toThrow(
      /does not start with a header of the input's columns, _row and _status/,
    );
  });

  it('checks JSONL records, cuts a torn last line and an unreadable last line', async () => {
    const whole = `${line(1)}${line(2, 'error')}`;
    expect(await jsonl(whole)).toEqual({
      hasHeader: true,
      records: 2,
      errorRows: [2],
      byStatus: counts({ ok: 1, error: 1 }),
      completeBytes: whole.length,
    });
    expect(await jsonl(`${whole}{"_row":3,"_sta`)).toMatchObject({ records: 2, completeBytes: whole.length });
    expect(await jsonl(`${whole}\u0000\u0000\n`)).toMatchObject({ records: 2, completeBytes: whole.length });
  });

  it('refuses an unreadable JSONL line with records after it, and a _row out of place', async () => {
    await expect(jsonl(`${line(1)}not json\n${line(3)}`)).rejects.toThrow(/record 2 is not a JSON object/);
    await expect(jsonl(`${line(1)}${line(1)}`)).rejects.toThrow(/record 2 has _row 1/);
  });
});
