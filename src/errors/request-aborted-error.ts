import { PropdataError } from './propdata-error.js';

/**
 * A request its caller cancelled (ServiceRequest.signal). Not a NetworkError: nothing went wrong
 * on the way, so it must never be retried; the only reason to cancel is an interruption (the
 * CLI exits 130).
 */
export class RequestAbortedError extends PropdataError {
  /** As NetworkError's: the request had gone out on a connection before it was cancelled. */
  readonly mayHaveBeenCharged: boolean;

  constructor(mayHaveBeenCharged: boolean) {
    super('E_ABORTED', 'the request was cancelled');
    this.mayHaveBeenCharged = mayHaveBeenCharged;
  }
}
