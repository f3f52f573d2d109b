import { UsageError } from '../errors/index.js';
import { openInput, type InputFormat } from '../input/open-input.js';
import { sectionKeys, targetForList } from '../model/query-target.js';
import { openOutput, outputFormatFor, type OutputFormat } from '../output/open-output.js';
import type { RunSummary } from '../pipeline/summary.js';
import type { BatchRecord } from './batch-run.js';

/** How to read a file of items (the CLI's --input flags). */
export interface ReadOptions {
  /** Default: from the extension (.csv, .tsv, .jsonl, .xlsx), else from the first bytes. */
  format?: InputFormat;
  /** A CSV's field delimiter. Default: tab for .tsv, else found from the header line. */
  delimiter?: string;
  /** A CSV's character encoding. Default: its byte order mark's, else UTF-8 if it is, else Windows-1252 (as Excel saves one). */
  encoding?: string;
  /** A workbook's sheet, by name or 1-based position (propdata/xlsx only). Default: the first. */
  sheet?: string;
  /**
   * The endpoint (or mget components, comma-separated) the rows are for: a workbook's identifier
   * cells that a spreadsheet made numbers are made text again by it. Default `property/value`.
   */
  endpoint?: string;
  /** Columns with other names than the catalog's, as BatchOptions.columns. Default: none. */
  columns?: Readonly<Record<string, string>>;
}

/** How to write records to a file (the CLI's --output flags). */
export interface WriteOptions {
  /** The endpoint, or mget components comma-separated, whose records these are: the columns follow from it. */
  endpoint: string;
  /** The items' own columns, in order: every record keeps them. */
  columns: readonly string[];
  /** Default: from the extension (.csv, .json, .jsonl, .xlsx), else CSV. */
  format?: OutputFormat;
  /** A CSV for spreadsheets: a byte order mark, and formulas neutralised. Default false. */
  excel?: boolean;
}

/** A file of records being written; `close` completes it (a workbook's summary sheet from `summary`). */
export interface RecordFile {
  write(record: BatchRecord<unknown>): Promise<void>;
  close(summary?: RunSummary): Promise<void>;
}

const XLSX_SUBPATH = "workbooks are read and written through import('propdata/xlsx'), which loads the workbook library only for them";

/** Rows of a CSV, JSONL (or, with `workbooks`, xlsx) file, as objects of its columns: items for `batch`. */
export async function* readRowsOf(path: string, options: ReadOptions, workbooks: boolean): AsyncGenerator<Record<string, unknown>> {
  const target = targetForList(options.endpoint ?? 'property/value');
  const input = await openInput({
    path,
    ...(options.format !== undefined ? { format: options.format } : {}),
    stdin: process.stdin,
    sheet: options.sheet,
    delimiter: options.delimiter,
    encoding: options.encoding,
    identifiers: { level: target.level, endpoints: target.paramEndpoints, map: { ...options.columns } },
  });
  if (input.format === 'xlsx' && !workbooks) throw new UsageError(`${path}: ${XLSX_SUBPATH}`, 'E_USAGE_XLSX');
  for await (const row of input.rows) {
    if (row.readError !== undefined) throw new UsageError(`${path}: row ${row.row}: ${row.readError}`, 'E_INPUT_ROW');
    yield row.columns;
  }
}

/** A file the records of a batch go to, written as the CLI writes its --output. */
export async function openRecordFileOf(path: string, options: WriteOptions, workbooks: boolean): Promise<RecordFile> {
  if (outputFormatFor(path, options.format) === 'xlsx' && !workbooks) throw new UsageError(`${path}: ${XLSX_SUBPATH}`, 'E_USAGE_XLSX');
  const target = targetForList(options.endpoint);
  const writer = await openOutput({
    path,
    ...(options.format !== undefined ? { format: options.format } : {}),
    stdout: process.stdout,
    inputColumns: options.columns,
    level: target.level,
    sections: sectionKeys(target),
    withMeta: options.columns.includes('meta'),
    append: false,
    excel: Boolean(options.excel),
  });
  return {
    write: async (record) => {
      await writer.write({
        row: record.row,
        status: record.status,
        input: record.input,
        ...(record.error !== undefined ? { error: record.error } : {}),
        ...(record.chunk !== undefined ? { chunk: record.chunk as Record<string, unknown> } : {}),
      });
    },
    close: async (summary) => {
      await writer.close();
      await writer.finish?.(summary ?? {});
    },
  };
}

/** Rows of a CSV or JSONL file, as objects of its columns (workbooks: `propdata/xlsx`). */
export const readRows = (path: string, options: ReadOptions = {}) => readRowsOf(path, options, false);

/** A CSV, JSON or JSONL file for a batch's records (workbooks: `propdata/xlsx`). */
export const openRecordFile = (path: string, options: WriteOptions) => openRecordFileOf(path, options, false);
