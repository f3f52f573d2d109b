import type { Database, Statement, Transaction } from 'better-sqlite3';
import { emptySharedState, pacerOn, type SharedPacer, type SharedState } from '../throttle/shared-pacer.js';
import type { NameIds } from './name-ids.js';

/**
 * The shared pacer of one account in the store: the state is one row, read and written back in a
 * BEGIN IMMEDIATE transaction (the write lock is taken before the read), so each grant sees every
 * other process's reservations and no two processes reserve the same room. `now` is read once the
 * lock is held, so reservations are stamped in the order they were made. A transaction is a few
 * hundred microseconds: far below the pace of any window. better-sqlite3 answers at once; the
 * methods are asynchronous only because the SharedPacer a network database implements must be.
 */
export class PacerTable {
  readonly #accounts: NameIds;
  readonly #load: Statement<[number], { state: string }>;
  readonly #save: Statement<[number, number, string]>;
  readonly #update: Transaction<(account: string, now: () => number, change: (state: SharedState, now: number) => unknown) => unknown>;

  constructor(db: Database, accounts: NameIds) {
    this.#accounts = accounts;
    this.#load = db.prepare<[number], { state: string }>('SELECT state FROM pacer WHERE account = ?');
    this.#save = db.prepare<[number, number, string]>(
      'INSERT INTO pacer (account, at, state) VALUES (?, ?, ?) ON CONFLICT (account) DO UPDATE SET at = excluded.at, state = excluded.state',
    );
    this.#update = db.transaction((account: string, now: () => number, change: (state: SharedState, now: number) => unknown) => {
      const id = this.#accounts.ensure(account);
      const row = this.#load.get(id);
      const state = row ? (JSON.parse(row.state) as SharedState) : emptySharedState();
      const at = now();
      const result = change(state, at);
      this.#save.run(id, at, JSON.stringify(state));
      return result;
    });
  }

  /** Applies `change` to the account's state in one write transaction, at the time `now` says then, and returns what it returns. */
  update<T>(account: string, now: () => number, change: (state: SharedState, now: number) => T): T {
    return this.#update.immediate(account, now, change) as T;
  }

  /** The pacer for `owner` (one process: its pid and start) on `account`, on the clock `now` (the run's). */
  for(account: string, owner: string, guard: <T>(work: () => T) => T, now: () => number): SharedPacer {
    return pacerOn(owner, (change) => new Promise((resolve) => resolve(guard(() => this.update(account, now, change)))));
  }
}
