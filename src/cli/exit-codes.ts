import type { JobOutcome } from '../engine/run-job.js';
import { asError } from '../errors/as-error.js';
import {
  BudgetReachedError,
  ConfigError,
  ItemTooWideError,
  PropdataError,
  QuotaWaitError,
  RequestAbortedError,
  UsageError,
} from '../errors/index.js';
import { SignalStop } from './stop-signal.js';

/** Exit codes, documented in docs/reference.md (its table is rendered from EXIT_MEANINGS). */
export const EXIT = {
  ok: 0,
  fatal: 1,
  usage: 2,
  someItemsFailed: 3,
  budgetReached: 4,
  /** The rate limit resets later than --max-wait: resumable once it has. */
  quotaWait: 5,
  interrupted: 130,
} as const;

/** What each exit code tells a script: the reference's exit-code table, declared beside the codes. */
export const EXIT_MEANINGS: Readonly<Record<keyof typeof EXIT, string>> = {
  ok: 'success (for a batch: every record `ok`, `partial` or `no_content`)',
  fatal:
    'fatal: service error (401, 403, credit exhausted, rate limits no pacing can keep; a service no request of a batch ever reached; for a one-off also a 400, 5xx, network or an unusable answer after retries), an input that cannot be read on (empty, not text, a header naming a column twice, an unclosed quote: the rows before it are written, the message says which are missing), a store or an output that fails (a full disk: what was answered is kept or written, and the same command continues), unexpected failure',
  usage: 'usage: bad flags, unknown endpoint, invalid identifiers for a one-off, missing credentials',
  someItemsFailed:
    "a batch completed, but some records are `invalid_input` or `error` (a batch's 5xx, network failures or unreadable answers after retries are `error` rows)",
  budgetReached:
    "a budget: a batch stopped before passing `--max-components`, `--max-cost` or `--max-cost-month` (the same command continues it), a one-off was refused for one, or one is below one item's price; or a gateway's budget (its key's, or the account's there) refused a request",
  quotaWait:
    'the rate limit resets later than `--max-wait` allows: a batch stopped (the same command continues it once it has), or a one-off was not sent (the message says when to try again)',
  interrupted: 'interrupted (Ctrl-C, SIGTERM, SIGHUP)',
};

/**
 * The exit code of the condition that stopped the CLI: the library's errors carry none, so the
 * mapping from class to code lives here, with the codes. Whatever is not named is fatal (1), and
 * so is what is no PropdataError at all (a failure of propdata itself).
 */
export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof ItemTooWideError) return EXIT.usage;
  if (error instanceof BudgetReachedError) return EXIT.budgetReached;
  if (error instanceof QuotaWaitError) return EXIT.quotaWait;
  // A stop by signal, or a request cancelled (the only reason to cancel is an interruption).
  if (error instanceof SignalStop || error instanceof RequestAbortedError) return EXIT.interrupted;
  return EXIT.fatal;
}

/**
 * The exit code a job's outcome means (the reference's table): the stopping condition's own, 130 for
 * a stop by signal, 3 when rows failed, else 0. A stop by something that is not a PropdataError is
 * a failure of propdata itself: it is thrown, for main() to report as one.
 */
export function exitCodeOf(outcome: Pick<JobOutcome, 'fatal' | 'interrupted' | 'records'>): number {
  const { fatal } = outcome;
  if (fatal !== undefined) {
    if (fatal instanceof PropdataError) return exitCodeFor(fatal);
    throw asError(fatal);
  }
  if (outcome.interrupted) return EXIT.interrupted;
  return outcome.records.invalid_input + outcome.records.error > 0 ? EXIT.someItemsFailed : EXIT.ok;
}
