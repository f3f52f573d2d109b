import type { PreparedItem } from '../input/row.js';

/** An item that is going to be sent, with the rows waiting for its result. */
export interface PendingItem {
  /** The first row that asked for this item; its input columns go with the request. */
  prepared: PreparedItem & { item: Record<string, string | number> };
}

/** Items with identical key sets, at most the batch size: one POST. */
export interface Batch {
  items: PendingItem[];
  /** The lowest row number in the batch: batches waiting longest go first. */
  firstRow: number;
}
