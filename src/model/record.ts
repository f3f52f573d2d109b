import type { Chunk } from './chunk.js';
import type { Status } from './status.js';

/** One output record per input item, whatever happened to it. */
export interface OutputRecord {
  row: number;
  status: Status;
  error?: string;
  /** The original input columns. */
  input: Record<string, unknown>;
  chunk?: Chunk;
  /** Never sent: the run stopped first. Written (as `error`) only where an answered row follows it. */
  unsent?: true;
}

/**
 * Whether a record carries an answer worth keeping: one the service gave (errors, and rows never
 * sent, carry none). Deduplication reuses it within a run, the store across runs.
 */
export function keepsAnswer(record: OutputRecord | undefined): record is OutputRecord & { chunk: Chunk } {
  return record?.chunk !== undefined && record.status !== 'error' && record.status !== 'invalid_input';
}
