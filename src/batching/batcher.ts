import { keySetOf } from '../catalog/index.js';
import type { Batch, PendingItem } from './batch.js';

/** What most rows make ready: nothing (a fresh array each time would be garbage per row). */
const NOTHING: readonly Batch[] = Object.freeze([]);

/**
 * Groups items by key set (and the sections they lack) into batches of at most `size`. A key set that is rare (a few rows with
 * a unit among thousands without) would hold its rows back, and with them every later row's
 * output, which must stay in input order; so when a batch fills, every group holding an earlier
 * row goes out before it (components, not requests, are what the service limits and bills), and
 * a group whose oldest row falls more than `maxHoldRows` behind the newest row is sent as it is.
 */
export class Batcher {
  readonly #size: number;
  readonly #maxHoldRows: number;
  readonly #groups = new Map<string, PendingItem[]>();
  /**
   * No group's first row is before this one (Infinity when there are none): a row that fills no
   * batch looks through the groups only when one may have been held too long.
   */
  #oldestRow = Infinity;
  /** The last item's keys and key set: the items of one input mostly share them, so they are compared, not rebuilt. */
  #lastKeys: readonly string[] = [];
  #lastKeySet = '';

  constructor(size: number, maxHoldRows: number) {
    this.#size = size;
    this.#maxHoldRows = maxHoldRows;
  }

  /** Adds an item; returns the batches that are now ready to send, oldest first. */
  add(pending: PendingItem): readonly Batch[] {
    const { row } = pending.prepared;
    // The service wants one key set and one components list a request: items lacking other
    // sections (the store keeps the rest) go in other batches.
    const keySet = this.#keySetOf(pending.prepared.item);
    const key = pending.plan ? `${keySet}|${pending.plan.sections.join(',')}` : keySet;
    let group = this.#groups.get(key);
    if (!group) {
      group = [];
      this.#groups.set(key, group);
      if (row < this.#oldestRow) this.#oldestRow = row;
    }
    group.push(pending);
    let oldestAllowed = row - this.#maxHoldRows;
    let full: Batch | undefined;
    if (group.length >= this.#size) {
      full = this.#take(key);
      oldestAllowed = Math.max(oldestAllowed, full.firstRow);
    }
    if (!full && this.#oldestRow >= oldestAllowed) return NOTHING;
    const ready = full ? [full] : [];
    for (const [otherKey, other] of this.#groups) {
      if (other[0]!.prepared.row < oldestAllowed) ready.push(this.#take(otherKey));
    }
    this.#oldestRow = Infinity;
    for (const other of this.#groups.values()) this.#oldestRow = Math.min(this.#oldestRow, other[0]!.prepared.row);
    return ready.length > 1 ? ready.sort((a, b) => a.firstRow - b.firstRow) : ready;
  }

  /** Everything still held, at the end of the input. */
  flush(): Batch[] {
    this.#oldestRow = Infinity;
    return [...this.#groups.keys()].map((key) => this.#take(key)).sort((a, b) => a.firstRow - b.firstRow);
  }

  #take(key: string): Batch {
    const items = this.#groups.get(key)!;
    this.#groups.delete(key);
    const sections = items[0]!.plan?.sections;
    return { items, firstRow: items[0]!.prepared.row, ...(sections ? { sections } : {}) };
  }

  /** keySetOf, without building the key list again while the items keep the last one's keys in its order. */
  #keySetOf(item: object): string {
    let i = 0;
    for (const key in item) {
      if (key !== this.#lastKeys[i]) return this.#newKeySet(item);
      i += 1;
    }
    return i === this.#lastKeys.length ? this.#lastKeySet : this.#newKeySet(item);
  }

  #newKeySet(item: object): string {
    this.#lastKeys = Object.keys(item);
    this.#lastKeySet = keySetOf(item);
    return this.#lastKeySet;
  }
}
