import type { Database, Statement } from 'better-sqlite3';

/** Jobs per account: when each began, and whether it completed. Every method runs inside the caller's write transaction. */
export class JobTable {
  readonly #current: Statement<[number, string], { started: number; finished: number | null }>;
  readonly #start: Statement<[number, string, number]>;
  readonly #finish: Statement<[number, number, string]>;
  readonly #latest: Statement<[number], number | null>;

  constructor(db: Database) {
    this.#current = db.prepare<[number, string], { started: number; finished: number | null }>(
      'SELECT started, finished FROM jobs WHERE account = ? AND job = ?',
    );
    this.#start = db.prepare(
      `INSERT INTO jobs (account, job, started, finished) VALUES (?, ?, ?, NULL)
       ON CONFLICT (account, job) DO UPDATE SET started = excluded.started, finished = NULL`,
    );
    this.#finish = db.prepare('UPDATE jobs SET finished = ? WHERE account = ? AND job = ? AND finished IS NULL');
    this.#latest = db.prepare<[number], number | null>('SELECT max(started) FROM jobs WHERE account = ?').pluck();
  }

  /**
   * The start of the job's unfinished run, or now for a new one (a job never begun, or completed).
   * No two jobs of an account begin at the same millisecond (a new one a millisecond after the
   * latest): a job's claims are owned by its command and its start, and two runs of one command on
   * one input started at once would otherwise take each other's claims for their own, and both buy.
   */
  begin(account: number, job: string, now: number): number {
    const since = this.since(account, job);
    if (since !== undefined) return since;
    const started = Math.max(now, (this.#latest.get(account) ?? -1) + 1);
    this.#start.run(account, job, started);
    return started;
  }

  /** Another name of a running job, begun at `since` unless a job of that name is running. */
  name(account: number, job: string, since: number): void {
    if (this.since(account, job) === undefined) this.#start.run(account, job, since);
  }

  /** The start of the job's unfinished run; undefined for a job never begun, or completed. */
  since(account: number, job: string): number | undefined {
    const current = this.#current.get(account, job);
    return current && current.finished === null ? current.started : undefined;
  }

  finish(account: number, job: string, now: number): void {
    this.#finish.run(now, account, job);
  }
}

/** The runs on the store now, per account, each until its lease lapses (Store.enterRun). Every method runs inside the caller's write transaction. */
export class RunTable {
  readonly #lapse: Statement<[number]>;
  readonly #enter: Statement<[string, number, number, number]>;
  readonly #earliest: Statement<[number, number], number>;
  readonly #leave: Statement<[string]>;

  constructor(db: Database) {
    this.#lapse = db.prepare('DELETE FROM runs WHERE expires <= ?');
    this.#enter = db.prepare(
      `INSERT INTO runs (run, account, started, expires) VALUES (?, ?, ?, ?)
       ON CONFLICT (run) DO UPDATE SET expires = excluded.expires`,
    );
    this.#earliest = db.prepare<[number, number], number>('SELECT min(started) FROM runs WHERE account = ? AND expires > ?').pluck();
    this.#leave = db.prepare('DELETE FROM runs WHERE run = ?');
  }

  /** Registers or renews `run`; the earliest start among the account's runs running now. */
  enter(account: number, run: string, now: number, leaseMs: number): number {
    this.#lapse.run(now);
    this.#enter.run(run, account, now, now + leaseMs);
    return this.#earliest.get(account, now) ?? now;
  }

  leave(run: string): void {
    this.#leave.run(run);
  }
}
