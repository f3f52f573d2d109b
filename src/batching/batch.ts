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
}

/** Items with identical key sets, at most the batch size: one POST. */
export interface Batch {
  items: PendingItem[];
  /** The lowest row number in the batch: batches waiting longest go first. */
  firstRow: number;
}
