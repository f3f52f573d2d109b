import { PropdataError } from './propdata-error.js';

/** No HTTP answer at all (refused, reset, timed out, DNS), after retries were spent. */
export class NetworkError extends PropdataError {
  constructor(detail: string, cause?: unknown) {
    super('E_NETWORK', `could not reach the service: ${detail}`, { cause });
  }
}
