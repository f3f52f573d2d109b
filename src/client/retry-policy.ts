import { NetworkError, ServerError } from '../errors/index.js';

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

/** 5xx and network failures may succeed on a second try; 4xx never will. */
export function isTransient(error: unknown): boolean {
  return error instanceof ServerError || error instanceof NetworkError;
}

/**
 * Exponential backoff with "equal jitter": at least half the ceiling (so a retry never comes back
 * at once) plus a random half, so that many clients failing together do not retry together.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
