import { statSync } from 'node:fs';
import type { Database, Statement } from 'better-sqlite3';
import type { NameIds } from '../name-ids.js';
import { countsOf, MAX_TIME_MS, type AnswerCountRow } from '../readable-time.js';
import type { ClearScope, StoreInfo } from '../store-api.js';

/**
 * Rows deleted per transaction: another process's run waits for the write lock at most this long
 * (milliseconds), never for a whole prune of a large store.
 */
const BATCH = 5_000;

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** info, prune and clear: the store's upkeep. Spend records are kept: they are the month's budget. */
export class Maintenance {
  readonly #db: Database;
  readonly #path: string;
  readonly #accounts: NameIds;
  readonly #deleteItems: Statement<[string]>;
  readonly #deleteSectionsOfItems: Statement<[string]>;

  constructor(db: Database, path: string, accounts: NameIds) {
    this.#db = db;
    this.#path = path;
    this.#accounts = accounts;
    this.#deleteSectionsOfItems = db.prepare('DELETE FROM sections WHERE item IN (SELECT value FROM json_each(?))');
    this.#deleteItems = db.prepare('DELETE FROM items WHERE id IN (SELECT value FROM json_each(?))');
  }

  bytes(): number {
    return fileSize(this.#path) + fileSize(`${this.#path}-wal`);
  }

  /**
   * The store's figures, and how many answers have a time that is no moment (MAX_TIME_MS): a
   * column's type does not bind in SQLite, so `at` may hold text put there by hand. Those are
   * left out of oldest and newest (NaN where a group has no readable time), never a failure.
   */
  info(account: string | undefined): { info: StoreInfo; unreadableTimes: number } {
    const id = account === undefined ? null : this.#accounts.find(account);
    const counted = { location: this.#path, bytes: this.bytes() };
    if (id === undefined) return { info: { ...counted, answers: [], requests: 0 }, unreadableTimes: 0 };
    // Not abs(): the least integer has no absolute value that fits.
    const readable = `typeof(s.at) IN ('integer', 'real') AND s.at BETWEEN -${MAX_TIME_MS} AND ${MAX_TIME_MS}`;
    const rows = this.#db
      .prepare<{ account: number | null }, AnswerCountRow>(
        `SELECT a.name AS account, e.name AS endpoint, COUNT(*) AS answers,
           MIN(CASE WHEN ${readable} THEN s.at END) AS oldest, MAX(CASE WHEN ${readable} THEN s.at END) AS newest,
           SUM(CASE WHEN ${readable} THEN 0 ELSE 1 END) AS unreadable
         FROM sections s JOIN items i ON i.id = s.item JOIN accounts a ON a.id = i.account JOIN endpoints e ON e.id = s.endpoint
         WHERE @account IS NULL OR i.account = @account
         GROUP BY a.name, e.name ORDER BY a.name, e.name`,
      )
      .all({ account: id });
    const { answers, unreadableTimes } = countsOf(rows);
    const requests =
      this.#db
        .prepare<{ account: number | null }, number>('SELECT COUNT(*) FROM requests WHERE @account IS NULL OR account = @account')
        .pluck()
        .get({ account: id }) ?? 0;
    return { info: { ...counted, answers, requests }, unreadableTimes };
  }

  /** Removes answers that arrived `olderThanMs` or longer before `now`, and claims lapsed by then; returns how many sections. */
  prune(olderThanMs: number, now: number): number {
    const before = now - olderThanMs;
    const oldItems = this.#db.prepare<[number, number], number>('SELECT id FROM items WHERE at < ? LIMIT ?').pluck();
    let removed = this.#removeItems(() => oldItems.all(before, BATCH));
    // Items answered again lately may still hold sections from long ago.
    const oldSections = this.#db.prepare<[number, number]>(
      'DELETE FROM sections WHERE (item, endpoint, params) IN (SELECT item, endpoint, params FROM sections WHERE at < ? LIMIT ?)',
    );
    const step = this.#db.transaction(() => oldSections.run(before, BATCH).changes);
    for (let changes = step.immediate(); changes > 0; changes = step.immediate()) removed += changes;
    this.#db.prepare<[number]>('DELETE FROM claims WHERE expires <= ?').run(now);
    this.#compact();
    return removed;
  }

  /** Removes the answers, claims and remembered limits of one account, or of every account; returns how many sections. */
  clear(scope: ClearScope): number {
    const account = 'account' in scope ? this.#accounts.find(scope.account) : null;
    if (account === undefined) return 0;
    const items = this.#db
      .prepare<{ account: number | null; batch: number }, number>(
        'SELECT id FROM items WHERE (@account IS NULL OR account = @account) LIMIT @batch',
      )
      .pluck();
    const removed = this.#removeItems(() => items.all({ account, batch: BATCH }));
    for (const table of ['windows', 'pacer', 'claims']) {
      this.#db.prepare<{ account: number | null }>(`DELETE FROM ${table} WHERE (@account IS NULL OR account = @account)`).run({ account });
    }
    this.#compact();
    return removed;
  }

  /** Deletes items (and their sections) batch by batch, each batch one short transaction; returns the sections removed. */
  #removeItems(pick: () => number[]): number {
    let removed = 0;
    const step = this.#db.transaction(() => {
      const ids = JSON.stringify(pick());
      if (ids === '[]') return false;
      removed += this.#deleteSectionsOfItems.run(ids).changes;
      this.#deleteItems.run(ids);
      return true;
    });
    let more = true;
    while (more) more = step.immediate();
    return removed;
  }

  /** Hands freed pages back to the file system, so that the file shrinks. */
  #compact(): void {
    this.#db.pragma('incremental_vacuum');
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }
}
