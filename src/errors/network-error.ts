import { PropdataError } from './propdata-error.js';

/** No complete HTTP answer (refused, reset, timed out, DNS), after retries were spent. */
export class NetworkError extends PropdataError {
  /**
   * The request had gone out on a connection before the failure (a timeout, a dropped connection),
   * so the service may have answered it and charged for it. False when no connection was made
   * (refused, DNS, connect timeout): nothing can have been charged.
   */
  readonly mayHaveBeenCharged: boolean;

  constructor(detail: string, context: { mayHaveBeenCharged: boolean; cause?: unknown }) {
    super('E_NETWORK', `could not reach the service: ${detail}`, { cause: context.cause });
    this.mayHaveBeenCharged = context.mayHaveBeenCharged;
  }
}
