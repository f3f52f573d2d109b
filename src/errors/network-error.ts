import { PropdataError } from './propdata-error.js';

/** No complete HTTP answer (refused, reset, timed out, DNS), after retries were spent. */
export class NetworkError extends PropdataError {
  /**
   * The request had gone out on a connection before the failure (a timeout, a dropped connection),
   * so the service may have answered it and charged for it. False when no connection was made
   * (refused, DNS, connect timeout): nothing can have been charged.
   */
  readonly mayHaveBeenCharged: boolean;
  /**
   * A failure a retry in seconds cannot mend: the host's name does not exist (a mistyped base URL),
   * so no time is spent on backoff before saying so.
   */
  readonly lasting: boolean;

  constructor(detail: string, context: { mayHaveBeenCharged: boolean; lasting?: boolean; cause?: unknown }) {
    super('E_NETWORK', `could not reach the service: ${detail}`, { cause: context.cause });
    this.mayHaveBeenCharged = context.mayHaveBeenCharged;
    this.lasting = context.lasting ?? false;
  }
}
