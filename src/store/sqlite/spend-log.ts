import type { Database, Statement } from 'better-sqlite3';
import type { NameIds } from '../name-ids.js';
import {
  monthOf,
  toMicros,
  toUsd,
  usageOf,
  type RequestGroup,
  type RequestRecord,
  type ReuseGroup,
  type ReuseRecord,
  type Usage,
  type UsageGrouping,
  type UsageQuery,
} from '../spend.js';

const GROUP_BY: Readonly<Record<UsageGrouping, string>> = {
  day: "strftime('%Y-%m-%d', at / 1000, 'unixepoch')",
  month: "strftime('%Y-%m', at / 1000, 'unixepoch')",
  endpoint: 'endpoint',
  run: 'run',
};

/** What was spent, and saved by the store, per account. Writes are parts of the caller's transaction. */
export class SpendLog {
  readonly #db: Database;
  readonly #accounts: NameIds;
  readonly #addRequest: Statement<[number, string, number, string, number, number, number, number, number]>;
  readonly #addReuse: Statement<[number, string, number, string, number, number]>;
  readonly #monthCost: Statement<[number, number, number], number>;
  readonly #findRequest: Statement<[number, number, string], number>;

  constructor(db: Database, accounts: NameIds) {
    this.#db = db;
    this.#accounts = accounts;
    this.#addRequest = db.prepare(
      'INSERT INTO requests (at, run, account, endpoint, items, components, status, billed, cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#addReuse = db.prepare('INSERT INTO reused (at, run, account, endpoint, rows, saved) VALUES (?, ?, ?, ?, ?, ?)');
    this.#monthCost = db
      .prepare<[number, number, number], number>('SELECT COALESCE(SUM(cost), 0) FROM requests WHERE account = ? AND at >= ? AND at < ?')
      .pluck();
    // By the (account, at) index: one lookup however long the log.
    this.#findRequest = db
      .prepare<[number, number, string], number>('SELECT 1 FROM requests WHERE account = ? AND at = ? AND run = ?')
      .pluck();
  }

  /** Whether a request of this account, time and run is recorded (an entry applied before: Store.record). */
  hasRequest({ account, at, run }: RequestRecord): boolean {
    const id = this.#accounts.find(account);
    return id !== undefined && this.#findRequest.get(id, at, run) !== undefined;
  }

  /** Within a write transaction. */
  recordRequest({ at, run, account, endpoint, items, components, status, billed, cost }: RequestRecord): void {
    this.#addRequest.run(at, run, this.#accounts.ensure(account), endpoint, items, components, status, billed, toMicros(cost));
  }

  /** Within a write transaction. */
  recordReuse({ at, run, account, endpoint, rows, saved }: ReuseRecord): void {
    this.#addReuse.run(at, run, this.#accounts.ensure(account), endpoint, rows, toMicros(saved));
  }

  /** USD at list price billed to the account in the UTC month holding `now`. */
  monthToDateCost(account: string, now: number): number {
    const id = this.#accounts.find(account);
    return id === undefined ? 0 : toUsd(this.#monthCost.get(id, ...monthOf(now)) ?? 0);
  }

  usage({ by, since = 0, account }: UsageQuery): Usage {
    const id = account === undefined ? null : this.#accounts.find(account);
    if (id === undefined) return usageOf(by, [], []);
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
    return usageOf(by, requests, reused);
  }
}
