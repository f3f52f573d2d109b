import { CsvError } from 'csv-parse';
import { UsageError } from '../errors/index.js';
import { STATUSES, type Status } from '../model/status.js';
import type { AppendableFormat } from '../output/record-text.js';
import { csvRawRecords, type CsvRawRecord } from './csv-raw-records.js';
import { fileLines } from './file-lines.js';

/** A whole record of an existing output, checked: it holds the row its position says. */
export interface StoredRecord {
  row: number;
  status: Status;
  /** Its exact text, newline included. */
  text: string;
  /** The byte offset just past it. */
  end: number;
}

export interface StoredOutput {
  /** The CSV header line as found, '' for JSONL; undefined when a CSV file has no whole header (it is started over). */
  header: string | undefined;
  /** Up to a torn last record (a record cut short by a crash), which is left out. */
  records: AsyncGenerator<StoredRecord>;
}

const BY_HAND = 'restore the file or run without --resume to start over';

/** `at` is the record's position (0: the header). */
function refuse(path: string, at: number, problem: string, cause: string): never {
  throw new UsageError(`${path} ${at === 0 ? 'header' : `record ${at}`} ${problem}: ${cause}; ${BY_HAND}`);
}

function checkedStatus(path: string, position: number, status: unknown): Status {
  if (!STATUSES.includes(status as Status)) refuse(path, position, `has _status ${JSON.stringify(status)}`, 'the file was edited');
  return status as Status;
}

/** A record torn inside a quoted cell leaves a quote open at the end of the file. */
const isTornQuote = (error: unknown) => error instanceof CsvError && error.code === 'CSV_QUOTE_NOT_CLOSED';

/** The next raw record, or undefined at the end of the file or at a torn one. */
async function nextWhole(raw: AsyncGenerator<CsvRawRecord>, path: string, position: number): Promise<CsvRawRecord | undefined> {
  let next: IteratorResult<CsvRawRecord>;
  try {
    next = await raw.next();
  } catch (error) {
    if (isTornQuote(error)) return undefined;
    if (error instanceof CsvError) refuse(path, position, `cannot be read as CSV (${error.message})`, 'the file was edited');
    throw error;
  }
  // Every line is written with its newline: one without was cut short, and only the last can be.
  if (next.done || !next.value.text.endsWith('\n')) return undefined;
  return next.value;
}

async function* csvRecords(path: string, start: number, width: number, rowAt: number): AsyncGenerator<StoredRecord> {
  const raw = csvRawRecords(path, start);
  try {
    for (let position = 1; ; position++) {
      const record = await nextWhole(raw, path, position);
      if (!record) return;
      const { cells, text, end } = record;
      if (text === '\n') refuse(path, position, 'is a blank line', 'a line was added by hand');
      if (cells.length !== width) refuse(path, position, `has ${cells.length} cells where the header has ${width}`, 'the file was edited');
      if (cells[rowAt] !== String(position)) refuse(path, position, `has _row ${cells[rowAt]}`, 'a line was removed or added by hand');
      yield { row: position, status: checkedStatus(path, position, cells[rowAt + 1]), text, end };
    }
  } finally {
    await raw.return(undefined);
  }
}

/**
 * The header must put `_row` and `_status` right after the input columns; the header as a whole
 * is checked by the writer that appends, which knows every column.
 */
async function csvOutput(path: string, inputColumns: readonly string[]): Promise<StoredOutput> {
  const lines = csvRawRecords(path, 0);
  let header: CsvRawRecord | undefined;
  try {
    header = await nextWhole(lines, path, 0);
  } finally {
    await lines.return(undefined);
  }
  if (!header) return { header: undefined, records: (async function* () {})() };
  const names = [header.cells[0]?.replace(/^\ufeff/, ''), ...header.cells.slice(1)];
  if ([...inputColumns, '_row', '_status'].some((name, i) => names[i] !== name)) {
    throw new UsageError(
      `${path} does not start with a header of the input's columns, _row and _status: it is not this run's output, or it was edited; ${BY_HAND}`,
    );
  }
  return { header: header.text, records: csvRecords(path, header.end, header.cells.length, inputColumns.length) };
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function* jsonlRecords(path: string): AsyncGenerator<StoredRecord> {
  let position = 0;
  let unreadable: number | undefined;
  for await (const { text, end, terminated } of fileLines(path)) {
    // An unreadable line is a torn write only when nothing follows it.
    if (unreadable !== undefined) refuse(path, unreadable, 'is not a JSON object', 'the file was edited');
    if (!terminated) return;
    position += 1;
    if (text === '') refuse(path, position, 'is a blank line', 'a line was added by hand');
    const record = parsedObject(text);
    if (!record) {
      unreadable = position;
      continue;
    }
    if (record._row !== position) refuse(path, position, `has _row ${JSON.stringify(record._row)}`, 'a line was removed or added by hand');
    yield { row: position, status: checkedStatus(path, position, record._status), text: `${text}\n`, end };
  }
}

/**
 * The records of an existing output, streamed and checked one by one: record N must hold row N
 * (a line deleted, duplicated or added by hand breaks that) with a status propdata writes. A
 * mismatch is a UsageError naming the file (as `path` spells it) and the record. `inputColumns`
 * place the CSV `_row` column: right after them.
 */
export async function readStoredOutput(path: string, format: AppendableFormat, inputColumns: readonly string[]): Promise<StoredOutput> {
  return format === 'jsonl' ? { header: '', records: jsonlRecords(path) } : csvOutput(path, inputColumns);
}
