import { createReadStream, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { InputError, UsageError } from '../errors/index.js';
import {
  checkEncoding,
  decodeChunks,
  decodeHead,
  isUtf8File,
  isUtf8Name,
  markedCharset,
  startsAsUtf8,
  UTF8,
  WINDOWS_1252,
} from './charset.js';
import { readCsv } from './csv-reader.js';
import { sniffDelimiter, type ChosenDelimiter } from './delimiter.js';
import type { InputFormat, InputSource } from './input-source.js';
import { readJsonl, scanJsonlKeys } from './jsonl-reader.js';
import { PROGRESS_OF_ROWS, readProgress, type ReadProgress } from './read-progress.js';
import { checkText, peekStart, refuseJsonArray, sniffFormat } from './sniff.js';
import type { IdentifierSettings } from './xlsx-identifiers.js';

export type { InputFormat } from './input-source.js';

export interface OpenInputOptions {
  /** A file path, or `-` for stdin. */
  path: string;
  /** `--input-format`; else the file extension decides, else the first non-blank byte. */
  format?: InputFormat;
  stdin: Readable;
  /** `--sheet`: the sheet of an xlsx input. */
  sheet?: string | undefined;
  /** How columns feed identifiers, for an xlsx input's numbers in identifier columns. */
  identifiers?: IdentifierSettings;
  /** `--delimiter`: a CSV's field delimiter; else a .tsv/.tab name means tab, else the header line decides. */
  delimiter?: string | undefined;
  /** `--encoding`: a CSV's character encoding; else its byte order mark, else UTF-8 when it is, else Windows-1252. */
  encoding?: string | undefined;
}

export interface OpenedInput extends InputSource {
  format: InputFormat;
  /**
   * A regular file, which can be read again from the start. False for stdin, a FIFO, a device or a
   * process substitution: those must be read exactly once, by `rows`.
   */
  seekable: boolean;
  /** A regular file's size and how far the reader has got through it: the progress bar's measure. */
  progress?: ReadProgress;
  /** A CSV's delimiter when it is not a comma, and what chose it: the caller says so. */
  delimiter?: ChosenDelimiter;
  /** The encoding a CSV that is not UTF-8 was read in, when no byte order mark or --encoding chose it: the caller says so. */
  decodedAs?: string;
}

const FORMAT_BY_EXTENSION: Readonly<Record<string, InputFormat>> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.tab': 'csv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.json': 'jsonl',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
};

/** Tab-separated files are CSV with another delimiter: their extension says so. */
function delimiterFor(path: string): string | undefined {
  const extension = extname(path).toLowerCase();
  return extension === '.tsv' || extension === '.tab' ? '\t' : undefined;
}

/** How to read a regular file's rows a second time, by the progress of its first reader. */
const REREADERS = new WeakMap<ReadProgress, () => Promise<OpenedInput>>();

function tracked(opened: OpenedInput, options: OpenInputOptions): OpenedInput {
  if (!opened.progress) return opened;
  PROGRESS_OF_ROWS.set(opened.rows, opened.progress);
  // The same file, format, delimiter and sheet: rows counted by the rules that read them.
  const again = { ...options, format: opened.format, ...(opened.delimiter ? { delimiter: opened.delimiter.char } : {}) };
  REREADERS.set(opened.progress, () => openInput(again));
  return opened;
}

/**
 * Counts a regular file's rows with a second reader, ahead of the run's, for an exact total in
 * the progress (`progress.counted`): the rows the run will read, as `estimate` counts them. A pipe
 * has no second reading. A file that cannot be read to its end leaves the estimate in place: the
 * run's own reader reports why. `signal` stops the count (the run is over).
 */
export async function countInputRows(progress: ReadProgress, signal: AbortSignal): Promise<void> {
  const reread = REREADERS.get(progress);
  if (!reread) return;
  try {
    let rows = 0;
    for await (const _row of (await reread()).rows) {
      if (signal.aborted) return;
      rows += 1;
    }
    progress.counted = rows;
  } catch {
    // The run's reader meets the same problem and says what it is.
  }
}

/** Follows links, so /dev/stdin and a process substitution's /dev/fd/63 show what they are. */
async function statInput(path: string): Promise<Stats> {
  const stats = await stat(path).catch((failure: unknown) => {
    const error = failure as NodeJS.ErrnoException;
    if (error.code === 'ENOENT') throw new UsageError(`input file not found: ${path}`, 'E_INPUT_NOT_FOUND');
    throw new UsageError(`cannot open input file ${path}: ${error.message}`, 'E_INPUT_UNREADABLE');
  });
  if (stats.isDirectory()) throw new UsageError(`input is a directory, not a file: ${path}`, 'E_INPUT_UNREADABLE');
  return stats;
}

/**
 * Opens `--input` for streaming. Fatal problems found before the first row (missing file, binary
 * content, UTF-16 JSON Lines, a JSON array) throw here; later ones surface from `columns` or `rows`.
 * Only a regular file is read more than once (the JSONL key pre-scan here; the
 * resume identity by the caller): from a pipe (stdin, a FIFO, `<(...)`) a second reader would take
 * bytes from the first. So JSONL columns are the union of all objects' keys for a regular file,
 * and the keys of the first object otherwise.
 */
export async function openInput(options: OpenInputOptions): Promise<OpenedInput> {
  const fromStdin = options.path === '-';
  const stats = fromStdin ? undefined : await statInput(options.path);
  const seekable = stats?.isFile() ?? false;
  const progress = stats && seekable ? readProgress(stats.size) : undefined;
  const withProgress = progress ? { progress } : {};
  const named = options.format ?? (fromStdin ? undefined : FORMAT_BY_EXTENSION[extname(options.path).toLowerCase()]);
  if (named === 'xlsx') {
    if (options.encoding !== undefined)
      throw new UsageError('--encoding chooses the encoding of a CSV input; a workbook has its own', 'E_USAGE_ENCODING');
    return tracked(await openWorkbook(options, seekable, progress), options);
  }
  if (options.sheet !== undefined) throw new UsageError('--sheet chooses a sheet of an xlsx input; this input is not one', 'E_USAGE_SHEET');
  const source = fromStdin ? options.stdin : createReadStream(options.path, { highWaterMark: 256 * 1024 });
  const { head, stream } = await peekStart(source);
  try {
    const given = options.encoding === undefined ? undefined : checkEncoding(options.encoding);
    const marked = markedCharset(head);
    const text = decodeHead(head, given ?? marked ?? UTF8);
    checkText(text);
    const format = named ?? sniffFormat(text);
    if (format === 'csv') return tracked(await openCsv(options, { head, text, stream, given, marked, seekable, progress }), options);
    const charset = given ?? marked ?? UTF8;
    if (!isUtf8Name(charset)) {
      throw new InputError('E_INPUT_UTF16', `JSON Lines input must be UTF-8, and this is ${charset}; save it as UTF-8 and rerun`, {
        line: 1,
      });
    }
    refuseJsonArray(text);
    return tracked(
      {
        format,
        seekable,
        ...withProgress,
        ...readJsonl(stream, { ...(seekable ? { columns: scanJsonlKeys(options.path) } : {}), ...withProgress }),
      },
      options,
    );
  } catch (error) {
    source.destroy();
    throw error;
  }
}

interface CsvStart {
  head: Buffer;
  /** The head decoded as the byte order mark or --encoding says, else as UTF-8. */
  text: string;
  stream: Readable;
  given: string | undefined;
  marked: string | undefined;
  seekable: boolean;
  progress: ReadProgress | undefined;
}

/** Excel's hint on a CSV's first line, `sep=;`: the delimiter, and the header is on line 2. */
const SEPARATOR_LINE = /^\uFEFF?sep=(.)\r?\n/;

/**
 * A CSV: its encoding (the byte order mark, else --encoding, else UTF-8 if the whole file is,
 * else Windows-1252), its delimiter (--delimiter, else Excel's `sep=` line, else a .tsv name,
 * else the header line), then the reader over the decoded text.
 */
async function openCsv(options: OpenInputOptions, start: CsvStart): Promise<OpenedInput> {
  const { head, text, stream, seekable, progress } = start;
  const fromFile = seekable ? options.path : undefined;
  // Undefined when the bytes had to tell, and they are not UTF-8.
  const chosen = start.given ?? start.marked ?? ((fromFile ? await isUtf8File(fromFile) : startsAsUtf8(head)) ? UTF8 : undefined);
  const charset = chosen ?? WINDOWS_1252;
  const separator = SEPARATOR_LINE.exec(text)?.[1];
  const chosenDelimiter = chooseDelimiter(options, separator, text);
  const delimiter = chosenDelimiter.char;
  const sourceBytes = { bytes: 0 };
  const decoded = isUtf8Name(charset) ? stream : decodeChunks(stream as AsyncIterable<Buffer>, charset, sourceBytes);
  return {
    format: 'csv',
    seekable,
    ...(progress ? { progress } : {}),
    ...readCsv(decoded, {
      delimiter,
      ...(progress ? { progress } : {}),
      ...(separator === undefined ? {} : { firstLine: 2 }),
      ...(decoded === stream ? {} : { sourceBytes }),
    }),
    ...(delimiter === ',' ? {} : { delimiter: chosenDelimiter }),
    ...(chosen === undefined ? { decodedAs: WINDOWS_1252 } : {}),
  };
}

/** --delimiter, else Excel's `sep=` line, else a .tsv name, else the header line. */
function chooseDelimiter(options: OpenInputOptions, separator: string | undefined, text: string): ChosenDelimiter {
  if (options.delimiter !== undefined) return { char: options.delimiter, source: 'option' };
  if (separator !== undefined) return { char: separator, source: 'sep-line' };
  const byName = delimiterFor(options.path);
  return byName === undefined ? { char: sniffDelimiter(text), source: 'header' } : { char: byName, source: 'file-name' };
}

/**
 * A workbook is read from a regular file, opened by path: its parts are read where the zip's
 * directory, at the file's end, says they are. stdin is refused rather than copied to disk. The
 * reader's modules load only for a workbook input.
 */
async function openWorkbook(options: OpenInputOptions, seekable: boolean, progress: ReadProgress | undefined): Promise<OpenedInput> {
  if (!seekable) throw new UsageError('an xlsx input must be a file: a workbook cannot be read from a pipe', 'E_USAGE_XLSX_PIPE');
  const { readXlsx } = await import('./xlsx-reader.js');
  return {
    format: 'xlsx',
    seekable,
    ...(progress ? { progress } : {}),
    ...readXlsx(options.path, { sheet: options.sheet, identifiers: options.identifiers, progress }),
  };
}
