import { STATUSES, type Status } from '../model/status.js';
import type { AppendableFormat } from '../output/record-text.js';
import { readStoredOutput } from './output-records.js';

export interface OutputScan {
  /** Whether the CSV header is whole (always, for JSONL): a file without one is started over. */
  hasHeader: boolean;
  /** Whole records, rows 1 to `records`, each checked. */
  records: number;
  /** Rows whose record is `error` or `not_sent`, ascending: resuming sends them again. */
  errorRows: number[];
  /** The records by status. */
  byStatus: Record<Status, number>;
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
  const scan: OutputScan = {
    hasHeader: header !== undefined,
    records: 0,
    errorRows: [],
    byStatus: Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<Status, number>,
    completeBytes: Buffer.byteLength(header ?? ''),
  };
  for await (const record of records) {
    scan.records = record.row;
    scan.completeBytes = record.end;
    scan.byStatus[record.status] += 1;
    if (record.status === 'error' || record.status === 'not_sent') scan.errorRows.push(record.row);
  }
  return scan;
}
