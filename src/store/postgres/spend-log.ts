import {
  monthOf,
  toMicros,
  toUsd,
  usageOf,
  type RequestGroup,
  type ReuseGroup,
  type ReuseRecord,
  type Usage,
  type UsageGrouping,
  type UsageQuery,
} from '../spend.js';
import type { Database } from './database.js';

/** UTC days and months, as the SQLite driver's strftime gives them. */
const GROUP_BY: Readonly<Record<UsageGrouping, string>> = {
  day: "to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
  month: "to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM')",
  endpoint: 'endpoint',
  run: 'run',
};

/** What was spent, and saved by the store, per account (requests are recorded with their answers: sections.ts). */
export class SpendLog {
  readonly #db: Database;
  readonly #s: string;

  constructor(db: Database, s: string) {
    this.#db = db;
    this.#s = s;
  }

  async recordReuse(accountId: number, { at, run, endpoint, rows, saved }: ReuseRecord): Promise<void> {
    await this.#db.query(`INSERT INTO ${this.#s}.reused (at, run, account, endpoint, rows, saved) VALUES ($1, $2, $3, $4, $5, $6)`, [
      at,
      run,
      accountId,
      endpoint,
      rows,
      toMicros(saved),
    ]);
  }

  /** USD at list price billed to the account in the UTC month holding the database's now. */
  async monthToDateCost(account: string): Promise<number> {
    const s = this.#s;
    const [{ now }] = (await this.#db.query<{ now: number }>(`SELECT ${s}.now_ms() AS now`)) as [{ now: number }];
    const [row] = await this.#db.query<{ cost: number }>(
      `SELECT coalesce(sum(cost), 0)::bigint AS cost FROM ${s}.requests
       WHERE account = (SELECT id FROM ${s}.accounts WHERE name = $1) AND at >= $2 AND at < $3`,
      [account, ...monthOf(now)],
    );
    return toUsd(row?.cost ?? 0);
  }

  async usage({ by, since = 0, account }: UsageQuery): Promise<Usage> {
    const s = this.#s;
    const group = GROUP_BY[by];
    // An account named but unknown matches no row (its id is null).
    const where = `WHERE at >= $1 AND ($2::text IS NULL OR account = (SELECT id FROM ${s}.accounts WHERE name = $2))`;
    const values = [since, account ?? null];
    const requests = await this.#db.query<RequestGroup>(
      `SELECT ${group} AS key, min(at) AS first, count(*) AS requests, sum(components)::bigint AS components,
         sum(billed)::bigint AS billed, sum(cost)::bigint AS cost
       FROM ${s}.requests ${where} GROUP BY 1`,
      values,
    );
    const reused = await this.#db.query<ReuseGroup>(
      `SELECT ${group} AS key, min(at) AS first, sum(rows)::bigint AS rows, sum(saved)::bigint AS saved FROM ${s}.reused ${where} GROUP BY 1`,
      values,
    );
    return usageOf(by, requests, reused);
  }
}
