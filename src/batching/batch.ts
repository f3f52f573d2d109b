import type { PreparedItem } from '../input/row.js';

export type SendableItem = PreparedItem & { item: Record<string, string | number> };

/** An item that is going to be sent, with any later rows that asked for the very same thing. */
export interface PendingItem {
  /** The first row that asked for this item: its item (and meta) is what is sent. */
  prepared: SendableItem;
  /** Later rows with identical identifiers and parameters: they get the same answer. */
  duplicates: SendableItem[];
  /** The deduplication key, when deduplication is on: worked out once per item, not per lookup. */
  key?: string;
  /**
   * The sections to buy when the store keeps the others: their indices among the run's sections
   * (ascending), and the kept ones by chunk member. Absent: every section is bought.
   */
  plan?: { sections: readonly number[]; kept: Readonly<Record<string, unknown>> };
  /** It waited for another job's answer past the limit: its claim takes even a live one over. */
  force?: boolean;
  /** Its forced claim was refused, yet the store still did not answer it: it is sent without a claim (run-batch.ts, apply). */
  unclaimed?: boolean;
}

/** Items with identical key sets lacking the same sections, at most the batch size: one POST. */
export interface Batch {
  items: PendingItem[];
  /** The sections its items lack (their plan), when not all: the request asks for these alone. */
  sections?: readonly number[];
  /** The lowest row number in the batch: batches waiting longest go first. */
  firstRow: number;
}
