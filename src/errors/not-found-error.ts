import { ServiceError, type ResponseHeaders } from './service-error.js';

/** HTTP 404: the path is not an endpoint the service knows. */
export class NotFoundError extends ServiceError {
  constructor(path: string, serviceMessage: string | undefined, headers?: ResponseHeaders) {
    super(
      'E_NOT_FOUND',
      404,
      `the service does not know ${path} (HTTP 404)${serviceMessage ? `: ${serviceMessage}` : ''}`,
      serviceMessage,
      headers,
    );
  }
}
