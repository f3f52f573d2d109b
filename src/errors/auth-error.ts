import { ServiceError, type ResponseHeaders } from './service-error.js';

/** HTTP 401. The service gives no explanation, so we give the two usual causes. */
export class AuthError extends ServiceError {
  constructor(headers?: ResponseHeaders) {
    super(
      'E_AUTH',
      401,
      'authentication failed (HTTP 401): check the API key and secret (propdata config list); test keys can only query test items',
      undefined,
      headers,
    );
  }
}
