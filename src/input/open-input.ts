import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { UsageError } from '../errors/index.js';
import { countRecords } from './count-rows.js';
import { readCsv } from './csv-reader.js';
import type { InputFormat, InputSource } from './input-source.js';
import { readJsonl, scanJsonlKeys } from './jsonl-reader.js';
import { checkText, peekStart, refuseJsonArray, sniffFormat } from './sniff.js';

export type { InputFormat } from './input-source.js';

export interface OpenInputOptions {
  /** A file path, or `-` for stdin. */
  path: string;
  /** `--input-format`; else the file extension decides, else the first non-blank byte. */
  format?: InputFormat;
  stdin: Readable;
}

export interface OpenedInput extends InputSource {
  format: InputFormat;
}

const FORMAT_BY_EXTENSION: Readonly<Record<string, InputFormat>> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.tab': 'csv',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
  '.json': 'jsonl',
};

/** Tab-separated files are CSV with another delimiter; the extension is the only cue we trust. */
function delimiterFor(path: string): string {
  const extension = extname(path).toLowerCase();
  return extension === '.tsv' || extension === '.tab' ? '\t' : ',';
}

async function checkFile(path: string): Promise<void> {
  const stats = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new UsageError(`input file not found: ${path}`, 'E_INPUT_NOT_FOUND');
    throw new UsageError(`cannot open input file ${path}: ${error.message}`, 'E_INPUT_UNREADABLE');
  });
  if (stats.isDirectory()) throw new UsageError(`input is a directory, not a file: ${path}`, 'E_INPUT_UNREADABLE');
}

/**
 * Opens `--input` for streaming. Fatal problems found before the first row (missing file, binary
 * or UTF-16 content, a JSON array) throw here; later ones surface from `columns` or `rows`.
 * JSONL columns: for a regular file, the union of all objects' keys (a pre-scan of the file); for
 * stdin, the keys of the first object.
 */
export async function openInput(options: OpenInputOptions): Promise<OpenedInput> {
  const fromStdin = options.path === '-';
  if (!fromStdin) await checkFile(options.path);
  const source = fromStdin ? options.stdin : createReadStream(options.path, { highWaterMark: 256 * 1024 });
  const { head, stream } = await peekStart(source);
  try {
    checkText(head);
    const format =
      options.format ?? (fromStdin ? undefined : FORMAT_BY_EXTENSION[extname(options.path).toLowerCase()]) ?? sniffFormat(head);
    if (format === 'csv') return { format, ...readCsv(stream, { delimiter: delimiterFor(options.path) }) };
    refuseJsonArray(head);
    return { format, ...readJsonl(stream, fromStdin ? {} : { columns: scanJsonlKeys(options.path) }) };
  } catch (error) {
    source.destroy();
    throw error;
  }
}

/**
 * The number of records in a regular file, for a progress bar's total: a separate streaming pass
 * the caller may run concurrently with the real read.
 */
export function countRows(path: string, format: InputFormat): Promise<number> {
  return countRecords(path, format, delimiterFor(path));
}
