import type { Database, Statement } from 'better-sqlite3';
import type { ReportedWindow } from '../../throttle/rate-headers.js';
import type { NameIds } from '../name-ids.js';
import { windowsAsOf } from '../windows.js';

/** The rate-limit windows the service last reported, per account. */
export class WindowMemory {
  readonly #accounts: NameIds;
  readonly #save: Statement<[number, number, string]>;
  readonly #load: Statement<[number], { at: number; windows: string }>;

  constructor(db: Database, accounts: NameIds) {
    this.#accounts = accounts;
    // Two runs on one account report in any order: the later report is kept.
    this.#save = db.prepare(
      `INSERT INTO windows (account, at, windows) VALUES (?, ?, ?)
       ON CONFLICT (account) DO UPDATE SET at = excluded.at, windows = excluded.windows WHERE excluded.at >= windows.at`,
    );
    this.#load = db.prepare<[number], { at: number; windows: string }>('SELECT at, windows FROM windows WHERE account = ?');
  }

  /** Within a write transaction. A response without rate-limit headers teaches nothing: an empty list is not saved. */
  save(account: string, windows: readonly ReportedWindow[], at: number): void {
    if (windows.length > 0) this.#save.run(this.#accounts.ensure(account), at, JSON.stringify(windows));
  }

  /** The windows last reported for the account, as they stand at `now`; undefined if none, or stale. */
  load(account: string, now: number): ReportedWindow[] | undefined {
    const id = this.#accounts.find(account);
    const row = id === undefined ? undefined : this.#load.get(id);
    return row && windowsAsOf(JSON.parse(row.windows) as ReportedWindow[], row.at, now);
  }
}
