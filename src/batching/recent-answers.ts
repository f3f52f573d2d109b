/**
 * What is known of a key: the item on its way (`held`, until its answer arrives), and its answer
 * once remembered (`value`, listed in the order of use).
 */
export interface Known<H, V> {
  readonly key: string;
  held: H | undefined;
  value: V | undefined;
  /** Whether `value` is in the recency list: only listed entries count against the capacity. */
  listed: boolean;
  older: Known<H, V> | undefined;
  newer: Known<H, V> | undefined;
}

/**
 * Items on their way, always (they are few: what is in flight), and at most `capacity` answers by
 * key; when room is needed the answer used least recently goes. One map holds both, so that a row
 * is one lookup and its answer no second entry: a distinct row made seven map operations and three
 * objects here, and deduplication was a tenth of a run's CPU. A Map alone keeps insertion order,
 * but finding its oldest key (`keys().next()`) walks past every entry deleted since the table was
 * last rebuilt; the list finds the oldest at once.
 */
export class RecentAnswers<H, V> {
  readonly #entries = new Map<string, Known<H, V>>();
  readonly #capacity: number;
  #listed = 0;
  #oldest: Known<H, V> | undefined;
  #newest: Known<H, V> | undefined;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** What is known of the key, if anything; an answer read through it should be marked used (use). */
  get(key: string): Known<H, V> | undefined {
    return this.#entries.get(key);
  }

  /** The item for a key nothing is known of is on its way. */
  hold(key: string, held: H): void {
    this.#entries.set(key, { key, held, value: undefined, listed: false, older: undefined, newer: undefined });
  }

  /** The answer counts as the most recently used. */
  use(entry: Known<H, V>): void {
    if (!entry.listed) return;
    this.#unlink(entry);
    this.#append(entry);
  }

  /** The key's item is no longer on its way; with `value`, its answer is remembered (replacing any). */
  settle(key: string, value: V | undefined): void {
    let entry = this.#entries.get(key);
    if (entry) entry.held = undefined;
    if (value === undefined) {
      if (entry && !entry.listed) this.#entries.delete(key);
      return;
    }
    if (!entry) {
      entry = { key, held: undefined, value, listed: false, older: undefined, newer: undefined };
      this.#entries.set(key, entry);
    }
    entry.value = value;
    if (entry.listed) this.#unlink(entry);
    else this.#listed += 1;
    this.#append(entry);
    if (this.#listed > this.#capacity) this.#evictOldest();
  }

  #evictOldest(): void {
    const oldest = this.#oldest!;
    this.#unlink(oldest);
    this.#listed -= 1;
    oldest.listed = false;
    oldest.value = undefined;
    if (oldest.held === undefined) this.#entries.delete(oldest.key);
  }

  #append(entry: Known<H, V>): void {
    entry.listed = true;
    entry.older = this.#newest;
    entry.newer = undefined;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
  }

  #unlink(entry: Known<H, V>): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.#oldest = entry.newer;
    if (entry.newer) entry.newer.older = entry.older;
    else this.#newest = entry.older;
  }
}
