import { appendFileSync, existsSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { OutputRecord } from '../../src/model/record.js';
import type { AppendableFormat } from '../../src/output/record-text.js';
import { openResumeWriter } from '../../src/resume/resume-writer.js';
import { planOutput, type OutputRequest } from '../../src/resume/output-plan.js';
import { journalLine, journalPathFor } from '../../src/resume/retry-journal.js';
import { recordProgress, statePathFor } from '../../src/resume/run-state.js';
import { answered, failed, INPUT_COLUMNS, LAYOUT, rows, tempDir, writeRecords } from './records.js';

const SHAPE = { columns: INPUT_COLUMNS, path: 'v2/property/value', sections: ['property/value'] };

/** An input, and an output written by a run of `records` whose state says it left `stated` records (complete or not). */
async function earlierRun(format: AppendableFormat, records: OutputRecord[], stated: number, complete: boolean) {
  const dir = tempDir();
  const input = join(dir, 'in.csv');
  writeFileSync(
    input,
    `address,zipcode\n${rows(1, 5)
      .map((row) => `${row} Main St,90274`)
      .join('\n')}\n`,
  );
  const output = join(dir, `out.${format}`);
  const request: OutputRequest = { input, inputSeekable: true, output, resume: true };
  const { state } = await planOutput({ ...request, resume: false }, SHAPE);
  await writeRecords(output, format, records);
  await recordProgress(output, state!, stated, complete);
  return { request, output, written: readFileSync(output) };
}

describe('planOutput with --resume', () => {
  it('writes a complete output without error rows afresh, saying so', async () => {
    const { request, output } = await earlierRun('csv', rows(1, 5).map(answered), 5, true);
    expect(await planOutput(request, SHAPE)).toMatchObject({ append: false, startRow: 1, retryRows: [], afresh: `${output} is complete` });
  });

  it('finds the error rows of a complete output: they are sent again, nothing is appended before them', async () => {
    const records = rows(1, 5).map((row) => (row === 2 || row === 4 ? failed(row) : answered(row)));
    const { request, output, written } = await earlierRun('jsonl', records, 5, true);
    const plan = await planOutput(request, SHAPE);
    expect(plan.afresh).toBeUndefined();
    expect(plan).toMatchObject({
      append: true,
      startRow: 6,
      retryRows: [2, 4],
      state: { records: 5, complete: false },
    });
    expect(readFileSync(output).equals(written)).toBe(true);
  });

  it('cuts a torn last record off and continues after the last whole one, retrying error rows before it', async () => {
    const { request, output, written } = await earlierRun('csv', [answered(1), failed(2), answered(3)], 0, false);
    appendFileSync(output, '4 Main St,90274,4,o');
    expect(await planOutput(request, SHAPE)).toMatchObject({ append: true, startRow: 4, retryRows: [2], state: { records: 3 } });
    expect(readFileSync(output).equals(written)).toBe(true);
  });

  it('writes an output emptied to 0 bytes whose run was complete afresh, saying records were removed', async () => {
    const { request, output } = await earlierRun('csv', rows(1, 5).map(answered), 5, true);
    truncateSync(output, 0);
    expect(await planOutput(request, SHAPE)).toMatchObject({
      append: false,
      afresh: `${output} holds 0 records but the earlier run wrote 5: records were removed`,
    });
  });

  it('writes an output with fewer records than its run left, or a missing one, afresh', async () => {
    const { request, output } = await earlierRun('jsonl', rows(1, 3).map(answered), 4, false);
    expect((await planOutput(request, SHAPE)).afresh).toMatch(/holds 3 records but the earlier run wrote 4/);
    rmSync(output);
    expect((await planOutput(request, SHAPE)).afresh).toBe(`${output} is missing but the earlier run wrote 4 records to it`);
  });

  it('writes an output with a line deleted by hand afresh, naming the line, and leaves the file to the writer', async () => {
    // Records 1, 3, 4 are what is left when record 2's lines are deleted.
    const { request, output, written } = await earlierRun('csv', [1, 3, 4].map(answered), 0, false);
    const plan = await planOutput(request, SHAPE);
    expect(plan).toMatchObject({ append: false, startRow: 1 });
    expect(plan.afresh).toMatch(/out\.csv record 2 has _row 3: a line was removed or added by hand/);
    expect(readFileSync(output).equals(written)).toBe(true);
  });

  it('writes afresh past a malformed run state, with what is wrong with it instead of a crash', async () => {
    const { request, output } = await earlierRun('csv', [answered(1)], 1, false);
    writeFileSync(statePathFor(output), '{"version":1}');
    expect((await planOutput(request, SHAPE)).afresh).toMatch(/propdata-run\.json was written by another version of propdata/);
  });

  it('merges the retried records a killed run left in the journal, then retries only the rows still failed', async () => {
    const records = rows(1, 5).map((row) => (row === 2 || row === 4 ? failed(row) : answered(row)));
    const { request, output } = await earlierRun('csv', records, 5, true);
    const plan = await planOutput(request, SHAPE);
    const writer = await openResumeWriter({
      path: output,
      stdout: new PassThrough(),
      ...LAYOUT,
      append: plan.append,
      startRow: plan.startRow,
      retryRows: plan.retryRows,
    });
    await writer.write(answered(2));
    // The record reaches the journal's file (the writer gathers a turn's records, then writes).
    await vi.waitFor(() => expect(readFileSync(journalPathFor(output), 'utf8')).toMatch(/^\{"row":2,.*\n$/));
    // kill -9: the writer is never closed, and the journal's last entry is cut short.
    appendFileSync(journalPathFor(output), journalLine(4, 'whatever\n').slice(0, 12));

    expect(await planOutput(request, SHAPE)).toMatchObject({ append: true, startRow: 6, retryRows: [4] });
    expect(existsSync(journalPathFor(output))).toBe(false);
    const expected = join(tempDir(), 'expected.csv');
    await writeRecords(
      expected,
      'csv',
      rows(1, 5).map((row) => (row === 4 ? failed(row) : answered(row))),
    );
    expect(readFileSync(output).equals(readFileSync(expected))).toBe(true);
  });

  it('writes afresh past a journal with a row the output does not hold, which belongs to no file then', async () => {
    const { request, output, written } = await earlierRun('jsonl', [answered(1), failed(2)], 2, false);
    writeFileSync(journalPathFor(output), journalLine(3, '{}\n'));
    expect((await planOutput(request, SHAPE)).afresh).toMatch(
      /out\.jsonl\.propdata-retry holds a record for row 3 but .*out\.jsonl has 2 records/,
    );
    expect(readFileSync(output).equals(written)).toBe(true);
    expect(existsSync(journalPathFor(output))).toBe(false);
  });

  it('without --resume, deletes a journal left beside the output: it belongs to the old file', async () => {
    const { request, output } = await earlierRun('csv', [answered(1), failed(2)], 2, false);
    writeFileSync(journalPathFor(output), journalLine(2, 'x\n'));
    await planOutput({ ...request, resume: false }, SHAPE);
    expect(existsSync(journalPathFor(output))).toBe(false);
  });
});
