import { PropdataError } from './propdata-error.js';

/**
 * The service's headers state a rate limit no pacing can keep (0, negative, fractional): its
 * windows are counted in whole components, and nothing fits in a window of none.
 */
export class UnusableRateLimitError extends PropdataError {
  constructor(window: { limit: number; periodSeconds: number }) {
    super(
      'E_RATE_LIMIT_UNUSABLE',
      `the service's X-RateLimit-Limit states ${window.limit} components per ${window.periodSeconds} s, and propdata cannot pace by a limit that is not a whole number above 0; ask the service's support about the account's rate limit`,
    );
  }
}
