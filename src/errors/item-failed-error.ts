import { PropdataError } from './propdata-error.js';

/**
 * The one item a library call asked for got no answer: the service or the network failed it after
 * the retries (a batch writes such an item as an `error` record instead). `row` and `reason` are
 * the record's.
 */
export class ItemFailedError extends PropdataError {
  readonly row: number;

  constructor(row: number, reason: string) {
    super('E_ITEM_FAILED', reason);
    this.row = row;
  }
}
