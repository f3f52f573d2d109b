import { ServiceError, type ResponseHeaders } from './service-error.js';

/**
 * A 200 whose content cannot be used (a chunk that is not an object, or nested beyond reason; no
 * chunk at all for a one-off). Not retried: the request was answered, and probably charged.
 */
export class BadResponseError extends ServiceError {
  constructor(path: string, problem: string, headers?: ResponseHeaders) {
    super('E_BAD_RESPONSE', 200, `cannot use the answer to ${path}: ${problem}`, undefined, headers);
  }
}
