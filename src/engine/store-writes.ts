import { STORE_WAITS } from '../policy/policy.js';
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

/** Requests answered and not yet written to the store at most, before the next batch waits for the store (a few MB of answers). */
const MAX_UNWRITTEN_REQUESTS = 16;

/**
 * Requests a group is written with at once, when more answers are on their way: each commit of a
 * local file rewrites every page its items land on (a random page of the items' index each), so
 * that 100 answers a commit cost SQLite 20 µs an item to commit, 800 a commit 8.
 */
const GROUP_REQUESTS = 8;

/** A group being gathered: its write starts once `go` is called (or its wait is over). */
interface Gathering {
  entries: StoreEntry[];
  go: () => void;
}

/**
 * Requests' entries handed to the store a group at a time (Store.recordMany): a group is written
 * once it has GROUP_REQUESTS requests, once no more answers are on their way (`expecting` says
 * none: a one-item call is written at once), once a lookup needs it (`writeNow`), or
 * STORE_WAITS.gatherMs after its first request, whichever comes first; and while the store writes
 * one group the next gathers. The items of entries not written yet are known: a lookup of one of
 * them waits for its group (an answer another lookup cannot see yet would be bought again).
 */
export function recordGroups(store: Store, writes: StoreWrites, expecting: () => boolean) {
  let gathering: Gathering | undefined;
  let entries = 0;
  let settling = 0;
  const unwritten = new Map<string, number>();
  const itemsOf = (entries: readonly StoreEntry[]) => entries.flatMap((entry) => (entry.settles ?? []).map((claim) => claim.item));
  const write = (group: Gathering, ready: Promise<void>) =>
    writes.add(async () => {
      await ready;
      // Whatever came in meanwhile goes with it; the next request starts a group of its own.
      if (gathering === group) gathering = undefined;
      try {
        await store.recordMany(group.entries);
      } finally {
        entries -= group.entries.length;
        for (const entry of group.entries) settling -= entry.settles?.length ?? 0;
        for (const item of itemsOf(group.entries)) {
          const left = unwritten.get(item)! - 1;
          if (left > 0) unwritten.set(item, left);
          else unwritten.delete(item);
        }
      }
    });
  return {
    add(entry: StoreEntry): void {
      for (const item of itemsOf([entry])) unwritten.set(item, (unwritten.get(item) ?? 0) + 1);
      entries += 1;
      settling += entry.settles?.length ?? 0;
      if (!gathering) {
        let go!: () => void;
        const ready = new Promise<void>((resolve) => (go = resolve));
        // On the machine's timer: a test's clock that stands still would otherwise hold the answers.
        const timer = setTimeout(go, STORE_WAITS.gatherMs);
        gathering = {
          entries: [],
          go: () => {
            clearTimeout(timer);
            go();
          },
        };
        write(gathering, ready);
      }
      gathering.entries.push(entry);
      if (gathering.entries.length >= GROUP_REQUESTS || !expecting()) gathering.go();
    },
    /** The group being gathered is written without waiting for more: something waits for it. */
    writeNow(): void {
      gathering?.go();
    },
    /**
     * Whether the store is behind: answers a store slower than the service (a sandbox with no
     * limit, a database far away) has not written would otherwise pile up in memory; a batch is
     * sent only once it has caught up (KeptAnswers.claim waits).
     */
    behind: (): boolean => entries > MAX_UNWRITTEN_REQUESTS,
    /** Whether any of these items is in an entry not written yet. */
    holds: (items: readonly string[]): boolean => unwritten.size > 0 && items.some((item) => unwritten.has(item)),
    /** Sections settled by entries not written yet. */
    get settling(): number {
      return settling;
    },
  };
}
