import { PropdataError } from './propdata-error.js';
import type { ResponseHeaders } from './service-error.js';

/**
 * The rate limit would keep the run waiting longer than --max-wait (a daily quota spent, a reset
 * far ahead): the run stops sending, writes what was answered and can be continued after `resetAt`.
 */
export class QuotaWaitError extends PropdataError {
  /** Epoch ms when the service said the window resets. */
  readonly resetAt: number;
  /** The 429 that said so, when the service answered one (the pacer's own foresight has none): its status, headers and request id. */
  readonly status: number | undefined;
  readonly headers: ResponseHeaders;
  readonly requestId: string | undefined;

  constructor(resetAt: number, maxWaitMs: number, answer?: { status: number; headers: ResponseHeaders; requestId: string | undefined }) {
    super(
      'E_QUOTA_WAIT',
      `the rate limit resets at ${new Date(resetAt).toISOString()}, later than --max-wait (${Math.round(maxWaitMs / 1000)} s) allows`,
    );
    this.resetAt = resetAt;
    this.status = answer?.status;
    this.headers = answer?.headers ?? {};
    this.requestId = answer?.requestId;
  }
}
