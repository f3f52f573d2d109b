import { PropdataError } from './propdata-error.js';

/**
 * A library call its caller's signal aborted (the client's or the call's), thrown at the abort
 * as openai-node's APIUserAbortError is, whatever was in flight: an answer already paid for is
 * still kept in the store when it arrives. `cause` is the signal's reason.
 */
export class CallAbortedError extends PropdataError {
  constructor(reason: unknown) {
    const because = reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : '';
    super('E_CALL_ABORTED', `the call was aborted${because}`, { cause: reason });
  }
}
