import { csvColumns, type CsvShape } from './csv-columns.js';
import { csvLine, csvLineRenderer } from './csv-line.js';
import { UTF8_BOM } from './excel-guard.js';
import { jsonRecord } from './json-record.js';
import type { OutputRecord } from '../model/record.js';

/** The formats a run can append to, and so resume. */
export type AppendableFormat = 'csv' | 'jsonl';

/** Everything besides the record that fixes a record's text: the CSV columns and --excel. */
export interface RecordLayout extends CsvShape {
  excel: boolean;
}

/**
 * The CSV header exactly as createCsvWriter writes it (a test holds the two together): resume
 * compares it with the file's, and a merge copies it.
 */
export function csvHeaderText(layout: RecordLayout): string {
  const headers = csvColumns(layout).map((column) => column.header);
  return `${layout.excel ? UTF8_BOM : ''}${csvLine(headers, layout.excel)}`;
}

/**
 * A record's text exactly as the writer for `format` writes it, newline included, so that a
 * record written somewhere else (the retry journal) can take its place in the output unchanged.
 */
export function recordTextRenderer(format: AppendableFormat, layout: RecordLayout): (record: OutputRecord) => string {
  if (format === 'jsonl') return (record) => `${jsonRecord(record)}\n`;
  return csvLineRenderer(csvColumns(layout), layout.excel);
}
