import { CsvError, parse } from 'csv-parse';
import { InputError } from '../errors/index.js';
import { nulByte } from './encoding.js';
import { plainLines, type PlainLines } from './plain-lines.js';
import { headerNames } from './header-names.js';
import { emptyInput, quietly, type InputSource } from './input-source.js';
import { MAX_RECORD_BYTES, recordTooLarge } from './record-size.js';
import type { ReadProgress } from './read-progress.js';
import { emptyColumns, type InputRow } from './row.js';

export interface CsvReadOptions {
  /** The field delimiter; default a comma. */
  delimiter?: string;
  progress?: ReadProgress;
  /** The line the header is on: 2 after Excel's `sep=;` line. */
  firstLine?: number;
  /** The source's bytes taken so far, when its chunks are decoded text (their length is not the file's). */
  sourceBytes?: { bytes: number };
}

interface RawRecord {
  fields: string[];
  /** 1-based line where the record starts. */
  line: number;
}

const LF = 10;
const CR = 13;

/**
 * Line breaks inside the fields of a record (quoted newlines), CRLF counted once. We count lines
 * ourselves rather than ask csv-parse: its `info` snapshot per record costs a fifth of the parse
 * time, and it counts a quoted CRLF as two lines.
 */
function innerLineBreaks(fields: readonly string[]): number {
  let count = 0;
  for (const field of fields) {
    if (field.indexOf('\n') === -1 && field.indexOf('\r') === -1) continue;
    for (let i = 0; i < field.length; i++) {
      const code = field.charCodeAt(i);
      if (code === LF || (code === CR && field.charCodeAt(i + 1) !== LF)) count += 1;
    }
  }
  return count;
}

/** A blank line, or a spreadsheet's blank row, which its CSV export writes as delimiters alone (`,,,,`). */
function isBlank(fields: readonly string[]): boolean {
  return fields.every((field) => field.trim() === '');
}

function csvFailure(error: unknown, line: number, row: number): InputError {
  if (error instanceof CsvError && error.code === 'CSV_QUOTE_NOT_CLOSED') {
    return new InputError(
      'E_CSV_UNCLOSED_QUOTE',
      `line ${line}: a quoted field opened in this record is never closed (row ${row}); close the quote, ` +
        'or write a quote inside a quoted field as two quotes (""). Rows before it were processed.',
      { line, record: row, cause: error },
    );
  }
  if (error instanceof CsvError && error.code === 'CSV_MAX_RECORD_SIZE') {
    return recordTooLarge('E_CSV_RECORD_TOO_LARGE', { line, row }, 'a quote that is never closed', error);
  }
  if (error instanceof CsvError) {
    return new InputError('E_CSV_UNREADABLE', `line ${line}: cannot read the CSV (${error.message})`, {
      line,
      record: row,
      cause: error,
    });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new InputError('E_INPUT_READ', `cannot read the input: ${detail}`, { line, record: row, cause: error });
}

/** csv-parse under the reader's options, its records pushed to `ready`, its error kept by `onError`. */
function openParser(options: CsvReadOptions, bom: boolean, ready: string[][], onError: (error: unknown) => void) {
  const parser = parse({
    bom,
    delimiter: options.delimiter ?? ',',
    // Lines before it (Excel's `sep=;` hint) are not records.
    from_line: options.firstLine ?? 1,
    // Any line end, even mixed in one file (concatenated exports): csv-parse would otherwise
    // settle on the first one it sees and read the others as part of a field.
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    // A quote inside an unquoted field (12" pipe) is a character, not a syntax error.
    relax_quotes: true,
    // Blank lines come through as records so that our line count sees them.
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_BYTES,
  });
  parser.on('data', (record: string[]) => ready.push(record));
  parser.on('error', onError);
  const ended = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('close', resolve);
  });
  return { parser, ended };
}

type Parser = ReturnType<typeof openParser>;

const written = (parser: Parser, chunk: Buffer | string) => new Promise<void>((resolve) => parser.parser.write(chunk, () => resolve()));

/**
 * Records with the line each starts on, blank lines skipped: split at once while the text is plain
 * (PlainLines), read by csv-parse from the first text that is not. We drive the parser chunk
 * by chunk instead of iterating the stream: a stream's async iterator drops records still
 * buffered when the parser fails at the end (unclosed quote), and the rows before the failure
 * must reach the output. Reading the next chunk only once the previous one's records are consumed
 * keeps memory bounded by one chunk.
 */
async function* csvRecords(source: AsyncIterable<Buffer | string>, options: CsvReadOptions): AsyncGenerator<RawRecord> {
  const { progress, sourceBytes } = options;
  const ready: string[][] = [];
  let failure: unknown;
  let plain = plainLines(options.delimiter ?? ',', options.firstLine ?? 1);
  let parser = plain ? undefined : openParser(options, true, ready, (error) => (failure ??= error));
  /** csv-parse from here on, given the text the plain splitter could not split. */
  const takeOver = (splitter: PlainLines) => {
    plain = undefined;
    return openParser(options, !splitter.splitAny, ready, (error) => (failure ??= error));
  };

  let nextLine = options.firstLine ?? 1;
  let records = 0;
  // Bytes given to the parser: the records a chunk completes share its bytes (and those of chunks
  // that completed none), so the count behind each record is exact at chunk ends and close between.
  let bytes = 0;
  // The first records of `ready` that were split plain: no field of theirs holds a line break.
  let plainRecords = 0;
  function* drain(): Generator<RawRecord> {
    const start = progress?.bytesRead ?? 0;
    for (let i = 0; i < ready.length; i++) {
      const fields = ready[i]!;
      const line = nextLine;
      nextLine += i < plainRecords ? 1 : 1 + innerLineBreaks(fields);
      if (progress) progress.bytesRead = start + Math.round(((bytes - start) * (i + 1)) / ready.length);
      if (isBlank(fields)) continue;
      records += 1;
      yield { fields, line };
    }
    ready.length = 0;
    plainRecords = 0;
  }
  const fail = () => csvFailure(failure, nextLine, records);

  try {
    try {
      for await (const chunk of source) {
        bytes = sourceBytes ? sourceBytes.bytes : bytes + (typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length);
        const rest = plain ? plain.take(chunk, ready) : chunk;
        plainRecords = ready.length;
        if (rest !== undefined) await written((parser ??= takeOver(plain!)), rest);
        yield* drain();
        if (failure !== undefined) throw fail();
      }
    } catch (error) {
      if (error instanceof InputError) throw error;
      failure ??= error;
      throw fail();
    }
    const rest = plain?.end(ready);
    plainRecords = ready.length;
    if (rest !== undefined) await written((parser = takeOver(plain!)), rest);
    if (parser) {
      parser.parser.end();
      await parser.ended;
    }
    yield* drain();
    if (failure !== undefined) throw fail();
  } finally {
    parser?.parser.destroy();
  }
}

function toRow(header: readonly string[], raw: RawRecord, row: number): InputRow {
  // Not a plain object: `columns["__proto__"] = value` would set its prototype and lose the cell.
  const columns = emptyColumns();
  const { fields } = raw;
  let readError: string | undefined;
  for (let i = 0; i < header.length; i++) {
    const value = fields[i] ?? '';
    if (readError === undefined) readError = nulByte(value);
    columns[header[i]!] = value;
  }
  if (fields.length !== header.length) {
    readError =
      `expected ${header.length} fields as in the header, got ${fields.length}; ` +
      'quote fields that contain the delimiter, or add the missing fields';
  }
  return readError === undefined ? { row, line: raw.line, columns } : { row, line: raw.line, columns, readError };
}

/**
 * CSV with a header row. Rows are numbered from 1 after the header, blank lines not counted.
 * Rows with the wrong number of fields and rows with a NUL byte come through with
 * `readError`; an unclosed quote, a duplicate column name or an empty input are fatal
 * (InputError), after the rows before them.
 */
export function readCsv(source: AsyncIterable<Buffer | string>, options: CsvReadOptions = {}): InputSource {
  const { progress } = options;
  const records = csvRecords(source, options);
  const columns = quietly(
    (async () => {
      const first = await records.next();
      if (first.done) throw emptyInput('a header row');
      const { fields, line } = first.value;
      return headerNames(fields, { code: 'E_CSV_DUPLICATE_COLUMN', where: `line ${line}`, line, columnLabel: (i) => String(i + 1) });
    })(),
  );
  async function* rows(): AsyncGenerator<InputRow> {
    const header = await columns;
    let row = 0;
    for await (const raw of { [Symbol.asyncIterator]: () => records }) {
      row += 1;
      if (progress) progress.rowsRead = row;
      yield toRow(header, raw, row);
    }
    if (progress) progress.done = true;
  }
  return { columns, rows: rows() };
}
