import { PropdataError } from './propdata-error.js';
import type { ResponseHeaders } from './service-error.js';

/** The service's answer that failed an item, as a ServiceError carries it. */
interface FailedAnswer {
  status: number;
  headers: ResponseHeaders;
  requestId: string | undefined;
}

/**
 * The one item a library call asked for got no answer: the service or the network failed it after
 * the retries (a batch writes such an item as an `error` record instead). `row` and `reason` are
 * the record's; `status`, `headers` and `requestId` the last answer's, when the service answered
 * (a 5xx), as a ServiceError's: undefined, and no headers, after a network failure.
 */
export class ItemFailedError extends PropdataError {
  readonly row: number;
  readonly status: number | undefined;
  readonly headers: ResponseHeaders;
  readonly requestId: string | undefined;

  constructor(row: number, reason: string, answer?: FailedAnswer) {
    super('E_ITEM_FAILED', reason);
    this.row = row;
    this.status = answer?.status;
    this.headers = answer?.headers ?? {};
    this.requestId = answer?.requestId;
  }
}
