import type { AppendableFormat } from '../output/record-text.js';
import { readStoredOutput } from './output-records.js';

export interface OutputScan {
  /** Whether the CSV header is whole (always, for JSONL): a file without one is started over. */
  hasHeader: boolean;
  /** Whole records, rows 1 to `records`, each checked. */
  records: number;
  /** Rows whose record is `error`, ascending: resuming sends them again. */
  errorRows: number[];
  /** The length of the file up to the end of its last whole record: anything after is torn. */
  completeBytes: number;
}

/**
 * Reads an existing output from end to end before a resume: what it holds, which rows failed,
 * and where a torn last record starts. Throws a UsageError on a record that is not where it
 * should be (see readStoredOutput). Streamed: only the failed rows' numbers are kept.
 */
export async function scanOutput(path: string, format: AppendableFormat, inputColumns: readonly string[]): Promise<OutputScan> {
  const { header, records } = await readStoredOutput(path, format, inputColumns);
  const scan: OutputScan = { hasHeader: header !== undefined, records: 0, errorRows: [], completeBytes: Buffer.byteLength(header ?? '') };
  for await (const record of records) {
    scan.records = record.row;
    scan.completeBytes = record.end;
    if (record.status === 'error') scan.errorRows.push(record.row);
  }
  return scan;
}
