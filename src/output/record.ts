export const STATUSES = ['ok', 'partial', 'no_content', 'invalid_input', 'error'] as const;
export type Status = (typeof STATUSES)[number];

/** A chunk exactly as the service returned it for one item. */
export type Chunk = Record<string, unknown>;

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
