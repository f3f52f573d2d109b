import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import {
  emptySharedState,
  joinIn,
  leaveIn,
  refundIn,
  reportIn,
  reserveIn,
  type ShareGrant,
  type SharedPacer,
  type SharedState,
  type ShareRequest,
} from '../throttle/shared-pacer.js';
import type { NameIds } from './name-ids.js';

/**
 * The shared pacer of one account in the store: the state is one row, read and written back in a
 * BEGIN IMMEDIATE transaction (the write lock is taken before the read), so each grant sees every
 * other process's reservations and no two processes reserve the same room. A transaction is a few
 * hundred microseconds: far below the pace of any window.
 */
export class PacerTable {
  readonly #accounts: NameIds;
  readonly #load: Statement<[number], { state: string }>;
  readonly #save: Statement<[number, number, string]>;
  readonly #update: Transaction<(account: string, now: number, change: (state: SharedState) => unknown) => unknown>;

  constructor(db: Database, accounts: NameIds) {
    this.#accounts = accounts;
    this.#load = db.prepare<[number], { state: string }>('SELECT state FROM pacer WHERE account = ?');
    this.#save = db.prepare<[number, number, string]>(
      'INSERT INTO pacer (account, at, state) VALUES (?, ?, ?) ON CONFLICT (account) DO UPDATE SET at = excluded.at, state = excluded.state',
    );
    this.#update = db.transaction((account: string, now: number, change: (state: SharedState) => unknown) => {
      const id = this.#accounts.ensure(account);
      const row = this.#load.get(id);
      const state = row ? (JSON.parse(row.state) as SharedState) : emptySharedState();
      const result = change(state);
      this.#save.run(id, now, JSON.stringify(state));
      return result;
    });
  }

  /** Applies `change` to the account's state in one write transaction and returns what it returns. */
  update<T>(account: string, now: number, change: (state: SharedState) => T): T {
    return this.#update.immediate(account, now, change) as T;
  }

  /** The pacer for `owner` (one process: its pid and start) on `account`. */
  for(account: string, owner: string, guard: <T>(work: () => T) => T): SharedPacer {
    return {
      join: (now: number) => guard(() => this.update(account, now, (state) => joinIn(state, owner, now))),
      reserve: (request: ShareRequest): ShareGrant =>
        guard(() => this.update(account, request.now, (state) => reserveIn(state, owner, request))),
      report: (reservation: number | undefined, reported: readonly ReportedWindow[], now: number) =>
        guard(() => this.update(account, now, (state) => reportIn(state, reservation, reported, now))),
      refund: (reservation: number, now: number) => guard(() => this.update(account, now, (state) => refundIn(state, reservation))),
      leave: (now: number) => guard(() => this.update(account, now, (state) => leaveIn(state, owner))),
    };
  }
}
