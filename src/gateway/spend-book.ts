import { randomUUID } from 'node:crypto';
import { GATEWAY_WAITS } from '../policy/policy.js';
import { monthOf } from '../store/spend.js';
import type { HoldOutcome, KeySpend } from '../store/key-store.js';
import type { Store } from '../store/store-api.js';
import type { CallSpend } from './upstream.js';

/** The UTC day holding `now`: its first millisecond. */
const dayOf = (now: number): number => now - (now % 86_400_000);

const add = (map: Map<string, number>, key: string, usd: number) => map.set(key, (map.get(key) ?? 0) + usd);

const FIGURES = ['requests', 'components', 'billed', 'cost', 'fromStore', 'saved'] as const;

/** Adds a call's figures into a pending row (made if new). */
function addInto(rows: Map<string, KeySpend>, slot: string, fresh: () => KeySpend, spend: CallSpend): void {
  const row = rows.get(slot) ?? fresh();
  for (const figure of FIGURES) row[figure] += spend[figure];
  rows.set(slot, row);
}

/** Rows taken for a write that failed go back, summed with what was added meanwhile: nothing is lost. */
function restore(rows: Map<string, KeySpend>, taken: ReadonlyMap<string, KeySpend>): void {
  for (const [slot, row] of taken)
    addInto(rows, slot, () => ({ ...row, ...{ requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 } }), row);
}

/** The budgets a call is bound by: its key's and the account's month budgets (either may be absent). */
export interface CallBudgets {
  keyBudget?: number;
  accountBudget?: number;
}

/** What each key spent today and this month, and the account this month, USD at list price. */
export interface SpendFigures {
  today: ReadonlyMap<string, number>;
  month: ReadonlyMap<string, number>;
  accountMonth: number;
}

/**
 * What the keys' calls bought and took from the store, for their budgets, the status page and
 * `usage --by key`.
 *
 * A call bound by a budget holds what it may buy in the store first (KeyStore.reserve: every
 * gateway and every job of the account see it), and settles it as it ends: its spend written and
 * its hold let go in one transaction, before the client is answered. A settle that fails keeps its
 * hold (renewed with every refresh, so the budget stays held) and is written again with the next
 * flush. Calls bound by no budget are summed per key and endpoint and written every flush, a row
 * each, not one a request (a busy gateway answers thousands a second from the store); a write that
 * fails puts its rows back. The status page's figures come from the store (every gateway on it,
 * every job of the account) as of the last refresh, plus what this gateway has spent since.
 */
export class SpendBook {
  readonly #store: Store;
  readonly #account: string;
  readonly #run: string;
  readonly #now: () => number;
  /** Calls bound by no budget, summed per key and endpoint. */
  #pending = new Map<string, KeySpend>();
  /** Rows the store answered, per endpoint, for the account's own record (`usage`). */
  #reused = new Map<string, KeySpend>();
  /** Holds of calls in flight: renewed until settled. */
  readonly #holds = new Set<string>();
  /** Settled calls whose spend is not written yet, by hold: their holds are renewed until it is. */
  readonly #unsettled = new Map<string, KeySpend[]>();
  /** As the store had them at the last refresh. */
  #stored: SpendFigures = { today: new Map(), month: new Map(), accountMonth: 0 };
  /** Spent by this gateway since the last refresh read the store. */
  #local = new Map<string, number>();
  /** Writes and refreshes one at a time: a refresh reads what the write before it wrote. */
  #chain: Promise<void> = Promise.resolve();

  constructor(store: Store, account: string, run: string, now: () => number) {
    this.#store = store;
    this.#account = account;
    this.#run = run;
    this.#now = now;
  }

  #row(key: string, endpoint: string): KeySpend {
    return { at: 0, key, account: this.#account, endpoint, requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 };
  }

  #counted(key: string, endpoint: string, spend: CallSpend): void {
    if (spend.fromStore > 0 || spend.saved > 0) addInto(this.#reused, endpoint, () => this.#row('', endpoint), spend);
    add(this.#local, key, spend.cost);
  }

  /** A call of `key` to `endpoint`, bound by no budget, is over: what it bought and what the store answered. */
  add(key: string, endpoint: string, spend: CallSpend): void {
    if (spend.requests === 0 && spend.fromStore === 0) return;
    addInto(this.#pending, `${key}\n${endpoint}`, () => this.#row(key, endpoint), spend);
    this.#counted(key, endpoint, spend);
  }

  /**
   * Holds `usd` of `key`'s budgets for a call about to buy, in the store; its id settles it. A
   * refusal names the budget and what it has spent.
   */
  async hold(key: string, usd: number, budgets: CallBudgets): Promise<{ id: string } | Exclude<HoldOutcome, { held: true }>> {
    const id = randomUUID();
    const now = this.#now();
    const outcome = await this.#store.keys.reserve({
      id,
      key,
      account: this.#account,
      usd,
      ...budgets,
      now,
      expires: now + GATEWAY_WAITS.holdLeaseMs,
    });
    if (!('held' in outcome)) return outcome;
    this.#holds.add(id);
    return { id };
  }

  /**
   * The call of hold `id` is over: its spend written and its hold let go, in one transaction.
   * Resolves once written, or once the write failed (kept, and written again with the next flush).
   */
  async settle(id: string, key: string, endpoint: string, spend: CallSpend): Promise<void> {
    this.#holds.delete(id);
    const spent = spend.requests > 0 || spend.fromStore > 0;
    this.#unsettled.set(id, spent ? [{ ...this.#row(key, endpoint), ...spend, at: this.#now() }] : []);
    this.#counted(key, endpoint, spend);
    await this.#then(() => this.#settleAll()).catch(() => undefined);
  }

  /** What the account has spent this month (every job and gateway on the store), as the status page shows it. */
  accountMonth(): number {
    let usd = this.#stored.accountMonth;
    for (const cost of this.#local.values()) usd += cost;
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

  /** Writes what was summed since the last flush, and every settle not written yet. */
  flush(): Promise<void> {
    return this.#then(() => this.#write());
  }

  /** Renews the holds still needed, writes what was summed, then reads every gateway's spend back from the store. */
  refresh(): Promise<void> {
    return this.#then(async () => {
      const now = this.#now();
      await this.#store.keys.renewHolds([...this.#holds, ...this.#unsettled.keys()], now + GATEWAY_WAITS.holdLeaseMs);
      // What is counted locally now is in the store once the write succeeds (a failed write subtracts nothing).
      const counted = new Map(this.#local);
      await this.#write();
      const [today, month, accountMonth] = await Promise.all([
        this.#store.keys.spentSince(dayOf(now)),
        this.#store.keys.spentSince(monthOf(now)[0]),
        this.#store.monthToDateCost(this.#account),
      ]);
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

  async #settleAll(): Promise<void> {
    for (const [id, rows] of [...this.#unsettled]) {
      await this.#store.keys.settle(id, rows);
      this.#unsettled.delete(id);
    }
  }

  async #write(): Promise<void> {
    await this.#settleAll();
    const at = this.#now();
    if (this.#pending.size > 0) {
      const taken = this.#pending;
      this.#pending = new Map();
      try {
        await this.#store.keys.recordSpend([...taken.values()].map((row) => ({ ...row, at })));
      } catch (error) {
        restore(this.#pending, taken);
        throw error;
      }
    }
    // The account's own record of rows the store answered (`usage`), summed the same way.
    for (const [endpoint, row] of [...this.#reused]) {
      this.#reused.delete(endpoint);
      try {
        await this.#store.recordReuse({ at, run: this.#run, account: this.#account, endpoint, rows: row.fromStore, saved: row.saved });
      } catch (error) {
        restore(this.#reused, new Map([[endpoint, row]]));
        throw error;
      }
    }
  }
}
