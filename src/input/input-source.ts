import { InputError } from '../errors/index.js';
import type { InputRow } from './row.js';
import type { IdentifierRepairs } from './xlsx-identifiers.js';

export type InputFormat = 'csv' | 'jsonl' | 'xlsx';

/**
 * What a reader offers: the column names (needed by the output writer before the first row) and
 * the rows, read lazily. `columns` settles before `rows` yields anything.
 */
export interface InputSource {
  columns: Promise<string[]>;
  rows: AsyncIterable<InputRow>;
  /** A workbook's identifier cells that were numbers, made text again (xlsx only): for the summary. */
  repairs?: IdentifierRepairs;
}

/**
 * A promise a caller may never await (it only iterates rows, which rethrow the same error): mark
 * it handled so a fatal input error is not also reported as an unhandled rejection.
 */
export function quietly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** An input without a single record is fatal in every format: there is nothing to run. */
export function emptyInput(expected: string): InputError {
  return new InputError('E_INPUT_EMPTY', `input is empty: expected ${expected}`);
}
