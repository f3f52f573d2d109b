import { InputError } from '../errors/index.js';

/**
 * A record bigger than this is not a real row: in a CSV almost always a quote that never closes,
 * in JSONL a file without line breaks. Without a cap the reader would swallow the rest of a huge
 * file into memory (and readline fails with an uncaught RangeError at V8's string limit).
 */
export const MAX_RECORD_BYTES = 32 * 1024 * 1024;

/**
 * The one message for a record over MAX_RECORD_BYTES, whatever the format. `likelyCause` says
 * what usually makes one in that format.
 */
export function recordTooLarge(code: string, position: { line: number; row: number }, likelyCause: string, cause?: unknown): InputError {
  const { line, row } = position;
  return new InputError(
    code,
    `line ${line}: the record starting here is longer than ${MAX_RECORD_BYTES / 1024 / 1024} MB (row ${row}); ` +
      `this is usually ${likelyCause}. Rows before it were processed.`,
    { line, record: row, cause },
  );
}
