import type { Database, Statement } from 'better-sqlite3';

/** Jobs per account: when each began, and whether it completed. Every method runs inside the caller's write transaction. */
export class JobTable {
  readonly #current: Statement<[number, string], { started: number; finished: number | null }>;
  readonly #start: Statement<[number, string, number]>;
  readonly #finish: Statement<[number, number, string]>;

  constructor(db: Database) {
    this.#current = db.prepare<[number, string], { started: number; finished: number | null }>(
      'SELECT started, finished FROM jobs WHERE account = ? AND job = ?',
    );
    this.#start = db.prepare(
      `INSERT INTO jobs (account, job, started, finished) VALUES (?, ?, ?, NULL)
       ON CONFLICT (account, job) DO UPDATE SET started = excluded.started, finished = NULL`,
    );
    this.#finish = db.prepare('UPDATE jobs SET finished = ? WHERE account = ? AND job = ? AND finished IS NULL');
  }

  /** The start of the job's unfinished run, or now for a new one (a job never begun, or completed). */
  begin(account: number, job: string, now: number): number {
    const since = this.since(account, job);
    if (since !== undefined) return since;
    this.#start.run(account, job, now);
    return now;
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
