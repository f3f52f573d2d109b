/**
 * `propdata/xlsx`: workbooks in and out. A subpath of its own so that a caller who never touches
 * one never loads the workbook library (exceljs takes half a second to load).
 */
import { openRecordFileOf, readRowsOf, type ReadOptions, type RecordFile, type WriteOptions } from './record-files.js';

export type { ReadOptions, RecordFile, WriteOptions } from './record-files.js';

/** Rows of a CSV, JSONL or xlsx file (a workbook from Excel, LibreOffice, pandas...), as objects of its columns. */
export const readRows = (path: string, options: ReadOptions = {}): AsyncGenerator<Record<string, unknown>> =>
  readRowsOf(path, options, true);

/** A CSV, JSON, JSONL or xlsx file for a batch's records; a workbook's summary sheet comes from `close(summary)`. */
export const openRecordFile = (path: string, options: WriteOptions): Promise<RecordFile> => openRecordFileOf(path, options, true);
