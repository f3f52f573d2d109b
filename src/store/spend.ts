import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { NameIds } from './name-ids.js';

/** A request that reached the service (whatever its status: a 429 or a 5xx reached it too). */
export interface RequestRecord {
  at: number;
  run: string;
  account: string;
  /** What was called: an endpoint, or an mget's components joined with commas. */
  endpoint: string;
  items: number;
  components: number;
  /** HTTP status. */
  status: number;
  /** Sections answered api_code 0: the ones billed. */
  billed: number;
  /** USD at list price of the billed sections. */
  cost: number;
}

/** Rows a run answered from the store instead of sending them. */
export interface ReuseRecord {
  at: number;
  run: string;
  account: string;
  endpoint: string;
  rows: number;
  /** USD at list price that sending them would have cost. */
  saved: number;
}

export const USAGE_GROUPINGS = ['day', 'month', 'endpoint', 'run'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

export interface UsageFigures {
  requests: number;
  components: number;
  billed: number;
  cost: number;
  fromStore: number;
  saved: number;
}

/** Totals and one row per day, month (UTC), endpoint or run, in time order (endpoints by name). */
export interface Usage {
  total: UsageFigures;
  rows: (UsageFigures & { key: string })[];
}

export interface UsageQuery {
  by: UsageGrouping;
  /** Epoch ms; absent: everything recorded. */
  since?: number;
  /** Absent: every account. */
  account?: string;
}

/** Money is kept as integer micro-dollars: sums of many list prices stay exact. */
const toMicros = (usd: number) => Math.round(usd * 1e6);
const toUsd = (micros: number) => micros / 1e6;

const GROUP_BY: Readonly<Record<UsageGrouping, string>> = {
  day: "strftime('%Y-%m-%d', at / 1000, 'unixepoch')",
  month: "strftime('%Y-%m', at / 1000, 'unixepoch')",
  endpoint: 'endpoint',
  run: 'run',
};

interface RequestGroup {
  key: string;
  first: number;
  requests: number;
  components: number;
  billed: number;
  cost: number;
}

interface ReuseGroup {
  key: string;
  first: number;
  rows: number;
  saved: number;
}

const emptyFigures = (): UsageFigures => ({ requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 });

/** The UTC calendar month holding `now`: its first millisecond and the next month's. */
function monthOf(now: number): [number, number] {
  const date = new Date(now);
  return [Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)];
}

/** What was spent, and saved by the store, per account. */
export class SpendLog {
  readonly #db: Database;
  readonly #accounts: NameIds;
  readonly #addRequest: Transaction<(request: RequestRecord) => void>;
  readonly #addReuse: Transaction<(reuse: ReuseRecord) => void>;
  readonly #monthCost: Statement<[number, number, number], number>;
  readonly #findRequest: Statement<[number, number, string], number>;

  constructor(db: Database, accounts: NameIds) {
    this.#db = db;
    this.#accounts = accounts;
    const addRequest = db.prepare<[number, string, number, string, number, number, number, number, number]>(
      'INSERT INTO requests (at, run, account, endpoint, items, components, status, billed, cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#addRequest = db.transaction(({ at, run, account, endpoint, items, components, status, billed, cost }: RequestRecord) => {
      addRequest.run(at, run, this.#accounts.ensure(account), endpoint, items, components, status, billed, toMicros(cost));
    });
    const addReuse = db.prepare<[number, string, number, string, number, number]>(
      'INSERT INTO reused (at, run, account, endpoint, rows, saved) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#addReuse = db.transaction(({ at, run, account, endpoint, rows, saved }: ReuseRecord) => {
      addReuse.run(at, run, this.#accounts.ensure(account), endpoint, rows, toMicros(saved));
    });
    this.#monthCost = db
      .prepare<[number, number, number], number>('SELECT COALESCE(SUM(cost), 0) FROM requests WHERE account = ? AND at >= ? AND at < ?')
      .pluck();
    // By the (account, at) index: one lookup however long the log.
    this.#findRequest = db
      .prepare<[number, number, string], number>('SELECT 1 FROM requests WHERE account = ? AND at = ? AND run = ?')
      .pluck();
  }

  /** Whether a request of this account, time and run is recorded (a pending entry applied before: pending.ts). */
  hasRequest({ account, at, run }: RequestRecord): boolean {
    const id = this.#accounts.find(account);
    return id !== undefined && this.#findRequest.get(id, at, run) !== undefined;
  }

  recordRequest(request: RequestRecord): void {
    this.#addRequest.immediate(request);
  }

  recordFromStore(reuse: ReuseRecord): void {
    this.#addReuse.immediate(reuse);
  }

  /** USD at list price billed to the account in the UTC month holding `now` (for --max-cost-month). */
  monthToDateCost(account: string, now: number): number {
    const id = this.#accounts.find(account);
    return id === undefined ? 0 : toUsd(this.#monthCost.get(id, ...monthOf(now)) ?? 0);
  }

  usage({ by, since = 0, account }: UsageQuery): Usage {
    const total = emptyFigures();
    const id = account === undefined ? null : this.#accounts.find(account);
    if (id === undefined) return { total, rows: [] };
    const where = 'WHERE at >= @since AND (@account IS NULL OR account = @account)';
    const group = GROUP_BY[by];
    const requests = this.#db
      .prepare<{ since: number; account: number | null }, RequestGroup>(
        `SELECT ${group} AS key, MIN(at) AS first, COUNT(*) AS requests, SUM(components) AS components, SUM(billed) AS billed, SUM(cost) AS cost
         FROM requests ${where} GROUP BY key`,
      )
      .all({ since, account: id });
    const reused = this.#db
      .prepare<{ since: number; account: number | null }, ReuseGroup>(
        `SELECT ${group} AS key, MIN(at) AS first, SUM(rows) AS rows, SUM(saved) AS saved FROM reused ${where} GROUP BY key`,
      )
      .all({ since, account: id });
    const rows = new Map<string, UsageFigures & { key: string; first: number }>();
    const rowOf = (key: string, first: number) => {
      const row = rows.get(key) ?? { key, first, ...emptyFigures() };
      row.first = Math.min(row.first, first);
      rows.set(key, row);
      return row;
    };
    for (const group of requests) {
      const row = rowOf(group.key, group.first);
      row.requests = group.requests;
      row.components = group.components;
      row.billed = group.billed;
      row.cost = toUsd(group.cost);
    }
    for (const group of reused) {
      const row = rowOf(group.key, group.first);
      row.fromStore = group.rows;
      row.saved = toUsd(group.saved);
    }
    const ordered = [...rows.values()].sort((a, b) => (by === 'run' ? a.first - b.first : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const group of requests) {
      total.requests += group.requests;
      total.components += group.components;
      total.billed += group.billed;
      total.cost += group.cost;
    }
    for (const group of reused) {
      total.fromStore += group.rows;
      total.saved += group.saved;
    }
    // Summed in micro-dollars above, converted once.
    total.cost = toUsd(total.cost);
    total.saved = toUsd(total.saved);
    return { total, rows: ordered.map(({ first: _first, ...row }) => row) };
  }
}
