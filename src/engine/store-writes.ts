import type { Store, StoreEntry } from '../store/store-api.js';

/**
 * A run's writes to the store, in the background and one after another: the run does not wait
 * for them, and the first failure stops it (`failure` rejects) and skips the writes after it.
 */
export class StoreWrites {
  readonly failure: Promise<never>;
  #fail!: (error: unknown) => void;
  #writing: Promise<void> = Promise.resolve();
  #failed = false;

  constructor() {
    this.failure = new Promise<never>((_, reject) => (this.#fail = reject));
    this.failure.catch(() => undefined);
  }

  add(work: () => Promise<void>): void {
    this.#writing = this.#writing
      .then(() => (this.#failed ? undefined : work()))
      .catch((error: unknown) => {
        this.#failed = true;
        this.#fail(error);
      });
  }

  /** Whether a write failed (the writes after it were skipped). */
  get failed(): boolean {
    return this.#failed;
  }

  /** Settles once every write handed over so far is done (or skipped after a failure). */
  get done(): Promise<void> {
    return this.#writing;
  }

  /** Every write done; throws the first failure. */
  async flush(): Promise<void> {
    await this.#writing;
    if (this.#failed) await this.failure;
  }
}

export type RecordGroups = ReturnType<typeof recordGroups>;

/**
 * A write starts a turn of the event loop after its first entry, so that the answers that came in
 * with it join it: a store that writes at once (SQLite) would otherwise commit every request alone.
 * A first run into SQLite then commits about two requests at a time, and is 6 to 7% faster
 * (BENCHMARKS.md, storeSpeed, stop 54). It risks nothing more on a kill -9: those answers' senders
 * wait for the write.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Requests' entries handed to the store a group at a time: a write takes every entry handed over
 * until it starts, so that while the store writes one group the next gathers, and a fast run writes
 * several requests a commit (Store.recordMany). A request keeps its sender until its answers are
 * written (pipeline/run-batch.ts, launch), so no more than the run's requests in flight wait here.
 * The items of entries not written yet are known: a lookup of one of them waits for its group (an
 * answer another lookup cannot see yet would be bought again).
 */
export function recordGroups(store: Store, writes: StoreWrites) {
  let gathering: StoreEntry[] = [];
  const unwritten = new Map<string, number>();
  const itemsOf = (entries: readonly StoreEntry[]) => entries.flatMap((entry) => (entry.settles ?? []).map((claim) => claim.item));
  return {
    add(entry: StoreEntry): void {
      for (const item of itemsOf([entry])) unwritten.set(item, (unwritten.get(item) ?? 0) + 1);
      gathering.push(entry);
      if (gathering.length > 1) return;
      writes.add(async () => {
        await nextTurn();
        const group = gathering;
        gathering = [];
        try {
          await store.recordMany(group);
        } finally {
          for (const item of itemsOf(group)) {
            const left = unwritten.get(item)! - 1;
            if (left > 0) unwritten.set(item, left);
            else unwritten.delete(item);
          }
        }
      });
    },
    /** Whether any of these items is in an entry not written yet. */
    holds: (items: readonly string[]): boolean => unwritten.size > 0 && items.some((item) => unwritten.has(item)),
  };
}
