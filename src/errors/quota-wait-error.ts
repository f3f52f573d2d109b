import { PropdataError } from './propdata-error.js';

/**
 * The rate limit would keep the run waiting longer than --max-wait (a daily quota spent, a reset
 * far ahead): the run stops sending, writes what was answered and can be continued after `resetAt`.
 */
export class QuotaWaitError extends PropdataError {
  /** Epoch ms when the service said the window resets. */
  readonly resetAt: number;

  constructor(resetAt: number, maxWaitMs: number) {
    super(
      'E_QUOTA_WAIT',
      `the rate limit resets at ${new Date(resetAt).toISOString()}, later than --max-wait (${Math.round(maxWaitMs / 1000)} s) allows`,
    );
    this.resetAt = resetAt;
  }
}
