import { monthOf } from '../store/spend.js';
import type { KeySpend } from '../store/key-store.js';
import type { Store } from '../store/store-api.js';
import type { CallSpend } from './upstream.js';

/** The UTC day holding `now`: its first millisecond. */
const dayOf = (now: number): number => now - (now % 86_400_000);

const add = (map: Map<string, number>, key: string, usd: number) => map.set(key, (map.get(key) ?? 0) + usd);

/** What each key spent today and this month, and the account this month, USD at list price. */
export interface SpendFigures {
  today: ReadonlyMap<string, number>;
  month: ReadonlyMap<string, number>;
  accountMonth: number;
}

/**
 * What the keys' calls bought and took from the store, for their budgets, the status page and
 * `usage --by key`. Calls are summed per key and endpoint and written every flush, a row each, not
 * one a request (a busy gateway answers thousands a second from the store). The month's figures
 * come from the store (every gateway on it, every job of the account) as of the last refresh, plus
 * what this gateway has spent since: several gateways on one store see each other's spend within a
 * refresh. What a call in flight may still spend is reserved, so that two calls of one key cannot
 * both pass its budget.
 */
export class SpendBook {
  readonly #store: Store;
  readonly #account: string;
  readonly #run: string;
  readonly #now: () => number;
  #pending = new Map<string, KeySpend>();
  /** As the store had them at the last refresh. */
  #stored: SpendFigures = { today: new Map(), month: new Map(), accountMonth: 0 };
  /** Spent by this gateway since the last refresh read the store. */
  #local = new Map<string, number>();
  readonly #reserved = new Map<string, number>();
  /** Flushes and refreshes one at a time: a refresh reads what the flush before it wrote. */
  #chain: Promise<void> = Promise.resolve();

  constructor(store: Store, account: string, run: string, now: () => number) {
    this.#store = store;
    this.#account = account;
    this.#run = run;
    this.#now = now;
  }

  /** A call of `key` to `endpoint` is over: what it bought and what the store answered. */
  add(key: string, endpoint: string, spend: CallSpend): void {
    if (spend.requests === 0 && spend.fromStore === 0) return;
    const slot = `${key}\n${endpoint}`;
    const row = this.#pending.get(slot) ?? {
      ...{ at: 0, key, account: this.#account, endpoint },
      ...{ requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 },
    };
    row.requests += spend.requests;
    row.components += spend.components;
    row.billed += spend.billed;
    row.cost += spend.cost;
    row.fromStore += spend.fromStore;
    row.saved += spend.saved;
    this.#pending.set(slot, row);
    add(this.#local, key, spend.cost);
  }

  /** Holds `usd` of `key`'s budget (and the account's) for a call in flight; give it back with release. */
  reserve(key: string, usd: number): void {
    add(this.#reserved, key, usd);
  }

  release(key: string, usd: number): void {
    add(this.#reserved, key, -usd);
    if ((this.#reserved.get(key) ?? 0) <= 1e-9) this.#reserved.delete(key);
  }

  /** What `key` has spent this month, with what its calls in flight hold. */
  keyMonth(key: string): number {
    return (this.#stored.month.get(key) ?? 0) + (this.#local.get(key) ?? 0) + (this.#reserved.get(key) ?? 0);
  }

  /** What the account has spent this month (every job and gateway on the store), with what calls in flight hold. */
  accountMonth(): number {
    let usd = this.#stored.accountMonth;
    for (const cost of this.#local.values()) usd += cost;
    for (const held of this.#reserved.values()) usd += held;
    return usd;
  }

  /** Today's and this month's figures, as the status page shows them. */
  figures(): SpendFigures {
    const plus = (stored: ReadonlyMap<string, number>) => {
      const sum = new Map(stored);
      for (const [key, cost] of this.#local) add(sum, key, cost);
      return sum;
    };
    return { today: plus(this.#stored.today), month: plus(this.#stored.month), accountMonth: this.accountMonth() };
  }

  /** Writes what was summed since the last flush. */
  flush(): Promise<void> {
    return this.#then(() => this.#write());
  }

  /** Writes what was summed, then reads every gateway's spend back from the store. */
  refresh(): Promise<void> {
    return this.#then(async () => {
      await this.#write();
      const now = this.#now();
      const counted = new Map(this.#local);
      const [today, month, accountMonth] = await Promise.all([
        this.#store.keys.spentSince(dayOf(now)),
        this.#store.keys.spentSince(monthOf(now)[0]),
        this.#store.monthToDateCost(this.#account),
      ]);
      // What was spent while the store was read is not in what it said: it stays local.
      for (const [key, cost] of counted) add(this.#local, key, -cost);
      for (const [key, cost] of this.#local) if (Math.abs(cost) < 1e-9) this.#local.delete(key);
      this.#stored = { today, month, accountMonth };
    });
  }

  #then(work: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(work);
    this.#chain = next.catch(() => undefined);
    return next;
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const at = this.#now();
    const rows = [...this.#pending.values()].map((row) => ({ ...row, at }));
    this.#pending = new Map();
    await this.#store.keys.recordSpend(rows);
    // The account's own record of rows the store answered (`usage`), summed the same way.
    for (const row of rows.filter((spent) => spent.fromStore > 0 || spent.saved > 0)) {
      await this.#store.recordReuse({
        at,
        run: this.#run,
        account: this.#account,
        endpoint: row.endpoint,
        rows: row.fromStore,
        saved: row.saved,
      });
    }
  }
}
