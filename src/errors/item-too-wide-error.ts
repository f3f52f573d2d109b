import { PropdataError } from './propdata-error.js';

/** One item needs more components than the service's smallest window admits: no wait can fix it. */
export class ItemTooWideError extends PropdataError {
  constructor(componentsPerItem: number, largestRequest: number) {
    super(
      'E_ITEM_TOO_WIDE',
      `one item needs ${componentsPerItem} components, but the service's smallest rate-limit window admits ${largestRequest}: name fewer endpoints per mget`,
    );
  }
}
