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
