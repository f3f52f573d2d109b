import { ServiceError, type ResponseHeaders } from './service-error.js';

/** HTTP 5xx, or a status the spec does not describe, after retries were spent. */
export class ServerError extends ServiceError {
  constructor(status: number, detail: string, headers?: ResponseHeaders) {
    super('E_SERVER', status, `the service failed (HTTP ${status}): ${detail}`, undefined, headers);
  }
}
