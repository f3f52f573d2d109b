import { extname } from 'node:path';
import type { Writable } from 'node:stream';
import type { Level } from '../catalog/index.js';
import { UsageError } from '../errors/index.js';
import { createCsvWriter } from './csv-writer.js';
import { createJsonWriter } from './json-writer.js';
import { createJsonlWriter } from './jsonl-writer.js';
import type { OutputWriter } from './record-writer.js';
import { openSink } from './sink.js';
import type { SheetsLayout } from './xlsx-layout.js';

export type { OutputWriter, RecordWriter } from './record-writer.js';
export type OutputFormat = 'csv' | 'json' | 'jsonl' | 'xlsx';

export interface OutputSettings {
  /** A file, or stdout when absent or `-`. */
  path?: string;
  format?: OutputFormat;
  stdout: Writable;
  inputColumns: readonly string[];
  level: Level;
  sections: readonly string[];
  withMeta: boolean;
  append: boolean;
  excel: boolean;
  /** `--sheets`: an xlsx output's sheets (default one sheet of records). */
  sheets?: SheetsLayout;
  /** `--short-names`: an xlsx output's columns named in words (`value_price_mean`). */
  shortNames?: boolean;
}

/** `--format`, else the output file's extension, else CSV. */
export function outputFormatFor(path: string | undefined, format: OutputFormat | undefined): OutputFormat {
  if (format) return format;
  const extension = extname(path ?? '').toLowerCase();
  if (extension === '.json') return 'json';
  if (extension === '.xlsx') return 'xlsx';
  return extension === '.jsonl' || extension === '.ndjson' ? 'jsonl' : 'csv';
}

export async function openOutput(settings: OutputSettings): Promise<OutputWriter> {
  const format = outputFormatFor(settings.path, settings.format);
  if (settings.sheets === 'endpoint' && format !== 'xlsx') {
    throw new UsageError('--sheets endpoint lays out a workbook: give --format xlsx or an --output ending in .xlsx', 'E_USAGE_SHEETS');
  }
  if (settings.shortNames && format !== 'xlsx') {
    // A CSV's header is what --resume checks and later runs read back: it keeps the dotted paths.
    throw new UsageError(
      "--short-names names a workbook's columns: give --format xlsx or an --output ending in .xlsx",
      'E_USAGE_SHORT_NAMES',
    );
  }
  // exceljs takes half a second to load: only a workbook pays for it.
  if (format === 'xlsx') return (await import('./xlsx-writer.js')).createXlsxWriter({ ...settings, sheets: settings.sheets ?? 'records' });
  const sink = await openSink(settings.path, settings.stdout, settings.append);
  switch (format) {
    case 'json':
      return createJsonWriter(sink);
    case 'jsonl':
      return createJsonlWriter(sink);
    case 'csv':
      return createCsvWriter(sink, settings);
  }
}
