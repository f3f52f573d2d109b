import { STATUSES, type Status } from '../model/status.js';
import type { ReadProgress } from '../input/read-progress.js';
import { SYSTEM_CLOCK, type Clock } from '../throttle/clock.js';

/** Counters a run keeps for its progress line, its summary and --report. */
export class RunStats {
  readonly #clock: Clock;
  readonly startedAt: number;
  readonly byStatus = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<Status, number>;
  rowsRead = 0;
  requests = 0;
  /** HTTP answers of any status: none at all means the service was never reached. */
  responses = 0;
  componentsUsed = 0;
  retries = 0;
  /** Retried requests whose failed attempt may have been served (sent whole then lost, or answered unreadably): the service may have charged it. */
  retriedPossiblyCharged = 0;
  /** Rows answered from the local store (--max-age): nothing sent for them. */
  fromStore = 0;
  /** Items the store answered in part: only the sections they lacked were bought. */
  partlyFromStore = 0;
  /** Requests sent and not yet answered: what a stop waits for. */
  requestsInFlight = 0;
  /** Rows written as `not_sent` because the run stopped before sending them (a later row's answer followed). */
  unsentWritten = 0;
  rateLimitWaits = 0;
  /** USD at list price of the sections answered with data (api_code 0): what the service bills. */
  costUsd = 0;
  /** How far the reader has got through a regular file's bytes, for the progress bar (none for a pipe). */
  input: ReadProgress | undefined;

  /** `clock`: the run's (a test's fake one makes elapsed time and rates follow it). */
  constructor(clock: Clock = SYSTEM_CLOCK) {
    this.#clock = clock;
    this.startedAt = clock.now();
  }

  get recordsWritten(): number {
    return STATUSES.reduce((sum, status) => sum + this.byStatus[status], 0);
  }

  get elapsedMs(): number {
    return this.#clock.now() - this.startedAt;
  }

  get itemsPerMinute(): number {
    return this.elapsedMs > 0 ? (this.recordsWritten * 60_000) / this.elapsedMs : 0;
  }
}
