import { ServiceError, type ResponseHeaders } from './service-error.js';

/** HTTP 429 that we decided not to wait out (beyond the wait cap, or retries spent). */
export class RateLimitedError extends ServiceError {
  readonly retryAt: number | undefined;

  constructor(serviceMessage: string | undefined, retryAt: number | undefined, headers?: ResponseHeaders) {
    const when = retryAt === undefined ? 'later' : `after ${new Date(retryAt).toISOString()}`;
    super('E_RATE_LIMITED', 429, `rate limit exhausted (HTTP 429): retry ${when}`, serviceMessage, headers);
    this.retryAt = retryAt;
  }
}
