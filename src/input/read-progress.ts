import type { InputRow } from './row.js';

/**
 * How far a reader has got through a regular file, for the progress bar: the file's size is known
 * from stat, and the reader counts the bytes behind the rows it hands out, so the row count is
 * estimated as the read goes instead of by a second pass over the file.
 */
export interface ReadProgress {
  /** The file's size in bytes. */
  readonly byteSize: number;
  /** Bytes of the file behind the rows handed out so far (blank lines and the header included). */
  bytesRead: number;
  /** Rows handed out so far. */
  rowsRead: number;
  /** Set when the reader reached the end of the file: `rowsRead` is then its row count. */
  done: boolean;
  /** The file's rows, counted by a second reader ahead of this one (open-input.ts countInputRows). */
  counted?: number;
}

/**
 * The progress of the reader whose rows these are, for a caller handed only the rows (the engine's
 * progress bar). Here, not beside the readers: the engine loads it for a one-off too, which reads
 * no file and must not load csv-parse.
 */
export const PROGRESS_OF_ROWS = new WeakMap<AsyncIterable<InputRow>, ReadProgress>();

export function inputProgress(rows: AsyncIterable<InputRow>): ReadProgress | undefined {
  return PROGRESS_OF_ROWS.get(rows);
}

export function readProgress(byteSize: number): ReadProgress {
  return { byteSize, bytesRead: 0, rowsRead: 0, done: false };
}

/** Whether estimatedRows() is the file's row count, not an estimate. */
export function rowsAreExact(progress: ReadProgress): boolean {
  return progress.done || progress.counted !== undefined;
}

/**
 * The rows the whole file holds: exact once it is read or counted, else the rows so far scaled by
 * the bytes left. Unknown before the first row, and once the bytes counted reach the file's size
 * before its end (a workbook's reader counts the share of its sheet read, scaled to the file's size).
 */
export function estimatedRows(progress: ReadProgress): number | undefined {
  if (progress.done) return progress.rowsRead;
  if (progress.counted !== undefined) return progress.counted;
  if (progress.rowsRead === 0 || progress.bytesRead <= 0 || progress.bytesRead >= progress.byteSize) return undefined;
  return Math.max(progress.rowsRead, Math.round((progress.rowsRead * progress.byteSize) / progress.bytesRead));
}
