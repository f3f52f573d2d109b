import { keySetOf } from '../catalog/index.js';
import type { Batch, PendingItem } from './batch.js';

/**
 * Groups items by key set into batches of at most `size`. A key set that is rare (a few rows with
 * a unit among thousands without) would hold its rows back, and with them every later row's
 * output, which must stay in input order; so when a batch fills, every group holding an earlier
 * row goes out before it (components, not requests, are what the service limits and bills), and
 * a group whose oldest row falls more than `maxHoldRows` behind the newest row is sent as it is.
 */
export class Batcher {
  readonly #size: number;
  readonly #maxHoldRows: number;
  readonly #groups = new Map<string, PendingItem[]>();

  constructor(size: number, maxHoldRows: number) {
    this.#size = size;
    this.#maxHoldRows = maxHoldRows;
  }

  /** Adds an item; returns the batches that are now ready to send, oldest first. */
  add(pending: PendingItem): Batch[] {
    const key = keySetOf(pending.prepared.item);
    let group = this.#groups.get(key);
    if (!group) {
      group = [];
      this.#groups.set(key, group);
    }
    group.push(pending);
    const ready: Batch[] = [];
    let oldestAllowed = pending.prepared.row - this.#maxHoldRows;
    if (group.length >= this.#size) {
      const full = this.#take(key);
      ready.push(full);
      oldestAllowed = Math.max(oldestAllowed, full.firstRow);
    }
    for (const [otherKey, other] of this.#groups) {
      if (other[0]!.prepared.row < oldestAllowed) ready.push(this.#take(otherKey));
    }
    return ready.length > 1 ? ready.sort((a, b) => a.firstRow - b.firstRow) : ready;
  }

  /** Everything still held, at the end of the input. */
  flush(): Batch[] {
    return [...this.#groups.keys()].map((key) => this.#take(key)).sort((a, b) => a.firstRow - b.firstRow);
  }

  #take(key: string): Batch {
    const items = this.#groups.get(key)!;
    this.#groups.delete(key);
    return { items, firstRow: items[0]!.prepared.row };
  }
}
