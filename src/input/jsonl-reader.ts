import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { InputError } from '../errors/index.js';
import { NUL_BYTE, nulByte } from './encoding.js';
import { emptyInput, quietly, type InputSource } from './input-source.js';
import { splitLines, type Line } from './lines.js';
import { MAX_RECORD_BYTES, recordTooLarge } from './record-size.js';
import type { ReadProgress } from './read-progress.js';
import type { InputRow } from './row.js';

/** Enough for any real record layout; a file with more distinct keys is not a table. */
const MAX_SCANNED_KEYS = 10_000;
const MAX_PARSE_DETAIL = 100;

/** Non-blank lines, BOM stripped. */
async function* nonBlankLines(source: Readable, position?: { bytes: number }): AsyncGenerator<Line> {
  let rows = 0;
  let number = 0;
  const tooLong = (line: number) =>
    recordTooLarge('E_JSONL_RECORD_TOO_LARGE', { line, row: rows + 1 }, 'a file without line breaks (JSON Lines has one object per line)');
  try {
    for await (const line of splitLines(source, MAX_RECORD_BYTES, tooLong, position)) {
      number = line.number;
      const text = number === 1 && line.text.charCodeAt(0) === 0xfeff ? line.text.slice(1) : line.text;
      if (text.trim() === '') continue;
      rows += 1;
      yield { text, number };
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new InputError('E_INPUT_READ', `cannot read the input: ${detail}`, { line: number + 1, cause: error });
  }
}

function parseObject(text: string): { value?: Record<string, unknown>; problem?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const short = detail.length > MAX_PARSE_DETAIL ? `${detail.slice(0, MAX_PARSE_DETAIL)}...` : detail;
    return { problem: `not a JSON object (${short}); write one {...} object per line` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    return { problem: `not a JSON object (found ${kind}); write one {...} object per line` };
  }
  return { value: value as Record<string, unknown> };
}

/**
 * A NUL written as the escape \u0000 is valid JSON but puts the byte in a value all the same.
 * Only top-level strings are cells; nested values are written back as JSON, escaped again.
 */
function hasEscapedNul(text: string, value: Record<string, unknown> | undefined): boolean {
  if (!value || !text.includes('\\u0000')) return false;
  for (const key in value) {
    const cell = value[key];
    if (typeof cell === 'string' && nulByte(cell) !== undefined) return true;
  }
  return false;
}

function toRow(line: Line, row: number): InputRow {
  const { value, problem } = parseObject(line.text);
  // A raw NUL also fails the parse: the byte is the problem to report, not the JSON syntax.
  const readError = nulByte(line.text) ?? problem ?? (hasEscapedNul(line.text, value) ? NUL_BYTE : undefined);
  // JSON.parse keeps a "__proto__" key as data; without the prototype, a key the object lacks
  // ("constructor", "toString") reads as undefined, not as Object's method.
  const columns = (value ? Object.setPrototypeOf(value, null) : Object.create(null)) as Record<string, unknown>;
  return readError === undefined ? { row, line: line.number, columns } : { row, line: line.number, columns, readError };
}

/**
 * JSON Lines: one object per line; blank lines are skipped and not counted, so `row` is the
 * record number. A line that is not an object becomes a row with `readError`, never a crash; an
 * input without a single non-blank line is fatal (InputError), as an empty CSV is.
 *
 * Columns: the given ones (a pre-scan of a regular file, see scanJsonlKeys), else the keys of
 * the first object, in order. From a pipe (stdin, a FIFO) only the first object can be seen
 * before output starts, so keys that first appear in later objects are not output columns.
 */
export function readJsonl(source: Readable, options: { columns?: Promise<string[]>; progress?: ReadProgress } = {}): InputSource {
  const { progress } = options;
  // The bytes up to the line last read: a row's, as lines are read one row at a time.
  const position = { bytes: 0 };
  const lines = nonBlankLines(source, position);
  // The pre-scan may fail while we are still waiting for the first line: not unhandled then.
  const given = options.columns && quietly(options.columns);
  let first: InputRow | undefined;
  const columns = quietly(
    (async () => {
      const next = await lines.next();
      if (next.done) throw emptyInput('one JSON object per line');
      first = toRow(next.value, 1);
      return given ?? Object.keys(first.columns);
    })(),
  );
  async function* rows(): AsyncGenerator<InputRow> {
    await columns;
    // columns settled, so the first row is read; let it go once yielded.
    const head = first!;
    first = undefined;
    if (progress) {
      progress.bytesRead = position.bytes;
      progress.rowsRead = 1;
    }
    yield head;
    let row = 1;
    for await (const line of { [Symbol.asyncIterator]: () => lines }) {
      row += 1;
      if (progress) {
        progress.bytesRead = position.bytes;
        progress.rowsRead = row;
      }
      yield toRow(line, row);
    }
    if (progress) progress.done = true;
  }
  return { columns, rows: rows() };
}

/**
 * The union of the keys of every object in a JSONL file, in first-seen order: one streaming pass
 * before the run, holding only the key names. Lines that are not objects are skipped here; the
 * reader reports them as rows.
 */
export async function scanJsonlKeys(path: string): Promise<string[]> {
  const keys = new Set<string>();
  try {
    await scanKeys(path, keys);
  } catch (error) {
    // A line too long to be a record ends the keys here: the reader sends the rows before it,
    // then stops at it with the message, which says so. Failing here would stop the run before
    // its first row, with a message saying rows before it were processed.
    if (!(error instanceof InputError && error.code === 'E_JSONL_RECORD_TOO_LARGE')) throw error;
  }
  return [...keys];
}

async function scanKeys(path: string, keys: Set<string>): Promise<void> {
  for await (const line of nonBlankLines(createReadStream(path))) {
    const { value } = parseObject(line.text);
    if (!value) continue;
    for (const key in value) {
      if (keys.has(key)) continue;
      if (keys.size >= MAX_SCANNED_KEYS) {
        throw new InputError(
          'E_JSONL_TOO_MANY_KEYS',
          `line ${line.number}: the objects use more than ${MAX_SCANNED_KEYS} different keys; ` +
            'JSONL input must be a table (objects with the same few keys)',
          { line: line.number },
        );
      }
      keys.add(key);
    }
  }
}
