import { NetworkError, RateLimitedError, ServerError, UnreadableAnswerError } from '../errors/index.js';
import type { RetryPolicy } from '../policy/policy.js';

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
function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A random delay after a 429's reset: up to rateLimitJitterMs, and never more than a tenth of the wait. */
// Exported for test/throttle/rate-limit-jitter.test.ts: the jitter with a fixed random draw.
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
  // A host whose name does not exist is not there in a few seconds either: said at once, not after 10 s of backoff.
  if (error instanceof NetworkError && error.lasting) return { action: 'give up' };
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
