import { ServiceError, type ResponseHeaders } from './service-error.js';

/**
 * HTTP 403: the credentials are known but not allowed (an IP allow-list, a component not enabled).
 * No item can fix it and every request would get the same answer, so it stops the run like a 401;
 * unlike a 401 it carries an explanation, which is the message.
 */
export class ForbiddenError extends ServiceError {
  constructor(serviceMessage: string | undefined, headers?: ResponseHeaders) {
    super(
      'E_FORBIDDEN',
      403,
      `access denied (HTTP 403): ${serviceMessage ?? 'no explanation given'}; check the account's API settings (allowed addresses, enabled components)`,
      serviceMessage,
      headers,
    );
  }
}
