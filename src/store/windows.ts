import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { NameIds } from './name-ids.js';

/**
 * How long remembered windows are trusted. Periods and limits are the account's plan, which seldom
 * changes; a week lets a nightly job (or a weekly one) start at the pace it ended at. Being wrong
 * costs one 429, after which the service's headers are learnt again.
 */
export const WINDOWS_FRESH_MS = 7 * 86_400_000;

/**
 * A window as it stands at `now`: one whose reset has passed has been renewed in full, at the next
 * multiple of its period after the reset reported.
 */
function asOf(window: ReportedWindow, now: number): ReportedWindow {
  if (window.resetAt > now) return window;
  const periodMs = window.periodSeconds * 1000;
  const periods = Math.floor((now - window.resetAt) / periodMs) + 1;
  return { ...window, remaining: window.limit, resetAt: window.resetAt + periods * periodMs };
}

/** The rate-limit windows the service last reported, per account. */
export class WindowMemory {
  readonly #accounts: NameIds;
  readonly #save: Transaction<(account: string, windows: readonly ReportedWindow[], at: number) => void>;
  readonly #load: Statement<[number], { at: number; windows: string }>;

  constructor(db: Database, accounts: NameIds) {
    this.#accounts = accounts;
    // Two runs on one account report in any order: the later report is kept.
    const save = db.prepare<[number, number, string]>(
      `INSERT INTO windows (account, at, windows) VALUES (?, ?, ?)
       ON CONFLICT (account) DO UPDATE SET at = excluded.at, windows = excluded.windows WHERE excluded.at >= windows.at`,
    );
    this.#save = db.transaction((account: string, windows: readonly ReportedWindow[], at: number) => {
      save.run(this.#accounts.ensure(account), at, JSON.stringify(windows));
    });
    this.#load = db.prepare<[number], { at: number; windows: string }>('SELECT at, windows FROM windows WHERE account = ?');
  }

  /** A response without rate-limit headers teaches nothing: an empty list is not saved. */
  save(account: string, windows: readonly ReportedWindow[], at: number): void {
    if (windows.length > 0) this.#save.immediate(account, windows, at);
  }

  /** The windows last reported for the account, as they stand at `now`; undefined if none, or older than WINDOWS_FRESH_MS. */
  load(account: string, now: number): ReportedWindow[] | undefined {
    const id = this.#accounts.find(account);
    const row = id === undefined ? undefined : this.#load.get(id);
    if (!row || now - row.at > WINDOWS_FRESH_MS) return undefined;
    return (JSON.parse(row.windows) as ReportedWindow[]).map((window) => asOf(window, now));
  }
}
