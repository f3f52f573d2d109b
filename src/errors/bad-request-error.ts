import { ServiceError, type ResponseHeaders } from './service-error.js';

/** HTTP 400: the service's explanation is the message. Not charged, not retried. */
export class BadRequestError extends ServiceError {
  constructor(serviceMessage: string | undefined, headers?: ResponseHeaders) {
    super('E_BAD_REQUEST', 400, `the service rejected the request: ${serviceMessage ?? 'no explanation given'}`, serviceMessage, headers);
  }
}
