import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { openOutput } from '../../src/output/open-output.js';
import type { OutputRecord } from '../../src/model/record.js';
import type { AppendableFormat, RecordLayout } from '../../src/output/record-text.js';

/** Real files for the resume tests: a temporary directory each, and records as a run writes them. */
export const tempDir = () => mkdtempSync(join(tmpdir(), 'propdata-resume-unit-'));

export const INPUT_COLUMNS = ['address', 'zipcode'];

export const LAYOUT: RecordLayout = {
  inputColumns: INPUT_COLUMNS,
  level: 'property',
  sections: ['property/value'],
  withMeta: false,
  excel: false,
};

/** Quotes, a comma and a line break in a cell, and a formula start for --excel. */
const input = (row: number) => ({ address: `${row} Main St, "Rear"\nUnit =${row}`, zipcode: '90274' });

export const answered = (row: number): OutputRecord => ({
  row,
  status: 'ok',
  input: input(row),
  chunk: {
    address_info: { address_full: `${row} Main St`, zipcode: '90274', status: { match: true } },
    'property/value': { api_code: 0, api_code_description: 'ok', result: { value: { price_mean: 100_000 + row, fsd: 0.1 } } },
  },
});

export const failed = (row: number): OutputRecord => ({ row, status: 'error', error: 'HTTP 503 after 5 retries', input: input(row) });

export async function writeRecords(
  path: string,
  format: AppendableFormat,
  records: readonly OutputRecord[],
  layout = LAYOUT,
  append = false,
): Promise<void> {
  const writer = await openOutput({ path, format, stdout: new PassThrough(), ...layout, append });
  for (const record of records) await writer.write(record);
  await writer.close();
}

export const rows = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
