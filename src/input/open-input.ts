import { createReadStream, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors/index.js';
import { readCsv } from './csv-reader.js';
import { sniffDelimiter } from './delimiter.js';
import type { InputFormat, InputSource } from './input-source.js';
import type { InputRow } from './row.js';
import { readJsonl, scanJsonlKeys } from './jsonl-reader.js';
import { readProgress, type ReadProgress } from './read-progress.js';
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
  /** A CSV's delimiter when it was found from the header line and is not a comma: the caller says so. */
  detectedDelimiter?: string;
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

/** The progress of the reader whose rows these are, for a caller handed only the rows. */
const PROGRESS_OF_ROWS = new WeakMap<AsyncIterable<InputRow>, ReadProgress>();

export function inputProgress(rows: AsyncIterable<InputRow>): ReadProgress | undefined {
  return PROGRESS_OF_ROWS.get(rows);
}

function tracked(opened: OpenedInput): OpenedInput {
  if (opened.progress) PROGRESS_OF_ROWS.set(opened.rows, opened.progress);
  return opened;
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
 * or UTF-16 content, a JSON array) throw here; later ones surface from `columns` or `rows`.
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
  if (named === 'xlsx') return tracked(await openWorkbook(options, seekable, progress));
  if (options.sheet !== undefined) throw new UsageError('--sheet chooses a sheet of an xlsx input; this input is not one', 'E_USAGE_SHEET');
  const source = fromStdin ? options.stdin : createReadStream(options.path, { highWaterMark: 256 * 1024 });
  const { head, stream } = await peekStart(source);
  try {
    checkText(head);
    const format = named ?? sniffFormat(head);
    if (format === 'csv') {
      const named = options.delimiter ?? delimiterFor(options.path);
      const delimiter = named ?? sniffDelimiter(head.toString('utf8'));
      return tracked({
        format,
        seekable,
        ...withProgress,
        ...readCsv(stream, { delimiter, ...withProgress }),
        ...(named === undefined && delimiter !== ',' ? { detectedDelimiter: delimiter } : {}),
      });
    }
    refuseJsonArray(head);
    return tracked({
      format,
      seekable,
      ...withProgress,
      ...readJsonl(stream, { ...(seekable ? { columns: scanJsonlKeys(options.path) } : {}), ...withProgress }),
    });
  } catch (error) {
    source.destroy();
    throw error;
  }
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
