import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import type { OutputRecord } from '../../src/model/record.js';
import { csvHeaderText, type AppendableFormat } from '../../src/output/record-text.js';
import { openResumeWriter } from '../../src/resume/resume-writer.js';
import { journalPathFor } from '../../src/resume/retry-journal.js';
import { answered, failed, LAYOUT, rows, tempDir, writeRecords } from './records.js';

const EXCEL = { ...LAYOUT, excel: true };

async function resume(
  path: string,
  format: AppendableFormat,
  plan: { startRow: number; retryRows: number[] },
  records: OutputRecord[],
  layout = LAYOUT,
) {
  const writer = await openResumeWriter({ path, format, stdout: new PassThrough(), ...layout, append: true, ...plan });
  for (const record of records) await writer.write(record);
  await writer.close();
}

describe('openResumeWriter', () => {
  it.each([
    ['csv', EXCEL],
    ['jsonl', LAYOUT],
  ] as const)('rewrites retried %s records in place: the file is byte-identical to a run that had not failed', async (format, layout) => {
    const dir = tempDir();
    const reference = join(dir, `reference.${format}`);
    await writeRecords(reference, format, rows(1, 6).map(answered), layout);
    const output = join(dir, `out.${format}`);
    await writeRecords(output, format, [answered(1), failed(2), answered(3), failed(4)], layout);

    await resume(output, format, { startRow: 5, retryRows: [2, 4] }, [2, 4, 5, 6].map(answered), layout);
    expect(readFileSync(output).equals(readFileSync(reference))).toBe(true);
    // Nothing is left beside the output: neither the retry journal nor the merge's file.
    expect(readdirSync(dir).sort()).toEqual([`out.${format}`, `reference.${format}`]);
  });

  it('leaves a row that failed again as error, and the output as it was when nothing came back', async () => {
    const output = join(tempDir(), 'out.csv');
    await writeRecords(output, 'csv', [answered(1), failed(2), failed(3)]);
    const before = readFileSync(output);
    await resume(output, 'csv', { startRow: 4, retryRows: [2, 3] }, [failed(2)]);
    expect(readFileSync(output).equals(before)).toBe(true);
    await resume(output, 'csv', { startRow: 4, retryRows: [2, 3] }, []);
    expect(readFileSync(output).equals(before)).toBe(true);
    expect(existsSync(journalPathFor(output))).toBe(false);
  });

  it('refuses a record for a row before startRow that is not to be retried', async () => {
    const output = join(tempDir(), 'out.jsonl');
    await writeRecords(output, 'jsonl', [answered(1), failed(2)]);
    const writer = await openResumeWriter({
      path: output,
      format: 'jsonl',
      stdout: new PassThrough(),
      ...LAYOUT,
      append: true,
      startRow: 3,
      retryRows: [2],
    });
    expect(() => writer.write(answered(1))).toThrow(/row 1 is before row 3 and not among the rows to retry/);
    await writer.close();
  });

  it('refuses to append to a CSV file under another header than this run writes', async () => {
    const output = join(tempDir(), 'out.csv');
    await writeRecords(output, 'csv', [answered(1)]);
    const refusal = resume(output, 'csv', { startRow: 2, retryRows: [] }, [answered(2)], EXCEL);
    await expect(refusal).rejects.toMatchObject({
      message: expect.stringMatching(/out\.csv has another header than the one this run writes: .*; run without --resume to start over$/),
    });
    expect(exitCodeFor(await refusal.catch((error: unknown) => error))).toBe(2);
  });

  it('compares with the header exactly as the CSV writer writes it', async () => {
    for (const layout of [LAYOUT, EXCEL]) {
      const output = join(tempDir(), 'out.csv');
      await writeRecords(output, 'csv', [], layout);
      expect(readFileSync(output, 'utf8')).toBe(csvHeaderText(layout));
    }
  });
});
