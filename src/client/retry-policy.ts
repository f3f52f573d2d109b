import { NetworkError, RateLimitedError, ServerError, UnreadableAnswerError } from '../errors/index.js';

/**
 * How a request is tried again: one policy for one-offs and batches, every default here. The
 * decisions are pure functions of the error, the attempts so far and the time, so the loops
 * that act on them (client/one-off requests, pipeline/send-batch) hold no policy of their own
 * and tests can check every timing without waiting.
 */
export interface RetryPolicy {
  /** Retries of a transient failure (5xx, timeout, dropped connection) before it is final. */
  maxRetries: number;
  /**
   * Of those, the most for a success whose body cannot be read (UnreadableAnswerError): each such
   * answer may have been charged, and one that came back broken twice is not a passing hiccup.
   */
  maxUnreadableRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest wait for the rate limit (a 429's reset, a spent window), in all, before the run stops. */
  maxWaitMs: number;
  /**
   * Slack after a 429's stated reset: clocks differ and transit takes time. With the jitter, less
   * than the limiter's own margin after a reset (minMarginMs): a job refused because others took
   * the window comes back just before them, is counted, and so is seen by them (jobs on other
   * machines see each other only in the service's counts).
   */
  rateLimitMarginMs: number;
  /**
   * The most random delay added after a 429's reset (at most a tenth of the wait itself), so that
   * jobs refused together do not all come back at one instant. Small: each job takes only its
   * share of a window's first part (the pacing policy's sharedPart), so a crowd at the reset
   * overruns nothing, while one that came back late would find the window taken and be refused again.
   */
  rateLimitJitterMs: number;
}

/** --max-wait when not given: a person at a prompt waits a minute and a half; an unattended batch, a quarter of an hour. */
export const DEFAULT_MAX_WAIT_MS = { oneOff: 90_000, batch: 15 * 60_000 } as const;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  maxUnreadableRetries: 1,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxWaitMs: DEFAULT_MAX_WAIT_MS.batch,
  rateLimitMarginMs: 10,
  rateLimitJitterMs: 30,
};

/** What has been tried for one request so far. */
export interface Attempts {
  transient: number;
  /** Those of `transient` that followed an unreadable answer. */
  unreadable: number;
  rateLimited: number;
  /** When the first 429 came: waits for the rate limit are bounded by maxWaitMs in all. */
  rateLimitedSince?: number;
}

export const NO_ATTEMPTS: Attempts = { transient: 0, unreadable: 0, rateLimited: 0 };

export type RetryDecision =
  /** A transient failure: try again after `delayMs`. `possiblyCharged`: the failed attempt may have been served and charged. */
  | { action: 'retry'; delayMs: number; possiblyCharged: boolean; next: Attempts }
  /** A 429: nobody sends before `until` (epoch ms), then the request goes again. */
  | { action: 'wait'; until: number; next: Attempts }
  /** A 429 whose wait passes maxWaitMs: stop; the quota is back at `until`. */
  | { action: 'quota'; until: number }
  /** Retries spent, or not an error a retry can fix: final. */
  | { action: 'give up' };

/**
 * 5xx, network failures and unreadable answers may succeed on a second try; 4xx never will. Once
 * their retries are spent, they are the failure of the rows they were for, not of the run.
 */
export function isTransient(error: unknown): boolean {
  return error instanceof ServerError || error instanceof NetworkError || error instanceof UnreadableAnswerError;
}

/** Whether the failed attempt may have been served and charged: it was sent whole and then lost, or answered unreadably. */
function mayHaveBeenCharged(error: unknown): boolean {
  return (error instanceof NetworkError && error.mayHaveBeenCharged) || error instanceof UnreadableAnswerError;
}

/**
 * Exponential backoff with "equal jitter": at least half the ceiling (so a retry never comes back
 * at once) plus a random half, so that many clients failing together do not retry together.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A random delay after a 429's reset: up to rateLimitJitterMs, and never more than a tenth of the wait. */
export function rateLimitJitter(policy: RetryPolicy, waitMs: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(policy.rateLimitJitterMs, Math.max(0, waitMs) / 10));
}

/**
 * What to do after `error`. A POST that timed out or lost its connection after it was sent whole,
 * or was answered with a body that cannot be read, may have been served and charged: it is
 * retried all the same (the answer is what the run is for) and the decision says so, for the
 * summary to count. An unreadable answer is retried at most maxUnreadableRetries times.
 */
export function decideRetry(
  error: unknown,
  attempts: Attempts,
  policy: RetryPolicy,
  now: number,
  random: () => number = Math.random,
): RetryDecision {
  if (error instanceof RateLimitedError) {
    const since = attempts.rateLimitedSince ?? now;
    const reset =
      (error.retryAt === undefined ? now + backoffDelay(policy, attempts.rateLimited, random) : error.retryAt) + policy.rateLimitMarginMs;
    const until = reset + rateLimitJitter(policy, reset - now, random);
    if (until - since > policy.maxWaitMs) return { action: 'quota', until };
    return { action: 'wait', until, next: { ...attempts, rateLimited: attempts.rateLimited + 1, rateLimitedSince: since } };
  }
  const unreadable = error instanceof UnreadableAnswerError ? 1 : 0;
  if (unreadable && attempts.unreadable >= policy.maxUnreadableRetries) return { action: 'give up' };
  if (isTransient(error) && attempts.transient < policy.maxRetries) {
    return {
      action: 'retry',
      delayMs: backoffDelay(policy, attempts.transient, random),
      possiblyCharged: mayHaveBeenCharged(error),
      next: { ...attempts, transient: attempts.transient + 1, unreadable: attempts.unreadable + unreadable },
    };
  }
  return { action: 'give up' };
}
