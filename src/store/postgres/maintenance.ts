import { countsOf, MAX_TIME_MS, type AnswerCountRow } from '../readable-time.js';
import type { ClearScope, StoreInfo } from '../store-api.js';
import type { Database } from './database.js';

/**
 * Items deleted per statement (each its own transaction): a run writing beside a prune waits at
 * most that long for the rows it shares with it, never for a whole prune of a large store.
 */
const BATCH = 5_000;

/**
 * info, prune and clear: the store's upkeep. Spend records are kept: they are the month's budget.
 * The room deleted rows leave is the database's to reuse (autovacuum), not handed back to the disk.
 */
export class Maintenance {
  readonly #db: Database;
  readonly #s: string;
  readonly #schema: string;
  readonly #location: string;

  constructor(db: Database, { s, schema, location }: { s: string; schema: string; location: string }) {
    this.#db = db;
    this.#s = s;
    this.#schema = schema;
    this.#location = location;
  }

  /**
   * The store's figures, and how many answers have a time that is no moment: a bigint column
   * holds no text, but a number beyond MAX_TIME_MS put there by hand is none. Those are left out
   * of oldest and newest (NaN where a group has no readable time), never a failure.
   */
  async info(account: string | undefined): Promise<{ info: StoreInfo; unreadableTimes: number }> {
    const s = this.#s;
    // Every table of the store's schema, its indexes included.
    const [size] = await this.#db.query<{ bytes: number }>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [this.#schema],
    );
    const counted = { location: this.#location, bytes: size?.bytes ?? 0 };
    const id =
      account === undefined
        ? null
        : (await this.#db.query<{ id: number }>(`SELECT id FROM ${s}.accounts WHERE name = $1`, [account]))[0]?.id;
    if (id === undefined) return { info: { ...counted, answers: [], requests: 0 }, unreadableTimes: 0 };
    // Not abs(): the least bigint has no absolute value that fits.
    const readable = `k.at BETWEEN -${MAX_TIME_MS} AND ${MAX_TIME_MS}`;
    const rows = await this.#db.query<AnswerCountRow>(
      `SELECT a.name AS account, k.endpoint, count(*)::integer AS answers,
         min(k.at) FILTER (WHERE ${readable}) AS oldest, max(k.at) FILTER (WHERE ${readable}) AS newest,
         (count(*) FILTER (WHERE NOT ${readable}))::integer AS unreadable
       FROM ${s}.sections k JOIN ${s}.items i ON i.id = k.item JOIN ${s}.accounts a ON a.id = i.account
       WHERE $1::integer IS NULL OR i.account = $1
       GROUP BY a.name, k.endpoint ORDER BY a.name COLLATE "C", k.endpoint COLLATE "C"`,
      [id],
    );
    const [requests] = await this.#db.query<{ count: number }>(
      `SELECT count(*) AS count FROM ${s}.requests WHERE $1::integer IS NULL OR account = $1`,
      [id],
    );
    const { answers, unreadableTimes } = countsOf(rows);
    return { info: { ...counted, answers, requests: requests?.count ?? 0 }, unreadableTimes };
  }

  /** Removes answers that arrived `olderThanMs` or more before the database's now, and lapsed claims; returns how many sections. */
  async prune(olderThanMs: number): Promise<number> {
    const s = this.#s;
    const [{ before }] = (await this.#db.query<{ before: number }>(`SELECT ${s}.now_ms() - $1 AS before`, [olderThanMs])) as [
      { before: number },
    ];
    let removed = await this.#removeItems(`at < $1`, [before]);
    // Items answered again lately may still hold sections from long ago.
    for (;;) {
      const [{ count }] = (await this.#db.query<{ count: number }>(
        `WITH gone AS (
           DELETE FROM ${s}.sections WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${s}.sections WHERE at < $1 LIMIT ${BATCH})) RETURNING 1
         )
         SELECT count(*) AS count FROM gone`,
        [before],
      )) as [{ count: number }];
      if (count === 0) break;
      removed += count;
    }
    await this.#db.query(`DELETE FROM ${s}.claims WHERE expires <= ${s}.now_ms()`);
    return removed;
  }

  /** Removes the answers, claims, windows and pacer of one account, or of every account; returns how many sections. */
  async clear(scope: ClearScope): Promise<number> {
    const s = this.#s;
    const account =
      'account' in scope
        ? (await this.#db.query<{ id: number }>(`SELECT id FROM ${s}.accounts WHERE name = $1`, [scope.account]))[0]?.id
        : null;
    if (account === undefined) return 0;
    const removed = await this.#removeItems('($1::integer IS NULL OR account = $1)', [account]);
    for (const table of ['windows', 'pacer', 'claims']) {
      await this.#db.query(`DELETE FROM ${s}.${table} WHERE $1::integer IS NULL OR account = $1`, [account]);
    }
    return removed;
  }

  /** Deletes the items `where` picks (and their sections), a batch a statement; returns the sections removed. */
  async #removeItems(where: string, values: readonly unknown[]): Promise<number> {
    const s = this.#s;
    let removed = 0;
    for (;;) {
      const [row] = (await this.#db.query<{ items: number; sections: number }>(
        `WITH gone AS (
           DELETE FROM ${s}.items WHERE id IN (SELECT id FROM ${s}.items WHERE ${where} LIMIT ${BATCH}) RETURNING id
         ),
         sections_gone AS (DELETE FROM ${s}.sections WHERE item IN (SELECT id FROM gone) RETURNING 1)
         SELECT (SELECT count(*) FROM gone) AS items, (SELECT count(*) FROM sections_gone) AS sections`,
        values,
      )) as [{ items: number; sections: number }];
      if (row.items === 0) return removed;
      removed += row.sections;
    }
  }
}
