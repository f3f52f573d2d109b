import { PropdataError } from './propdata-error.js';

/**
 * The service answered with an HTTP error. `status` and the parsed `message` travel with it so the
 * batch pipeline can decide per batch (retry, record on items, stop) without parsing text.
 */
export class ServiceError extends PropdataError {
  readonly status: number;
  readonly serviceMessage: string | undefined;

  constructor(code: string, status: number, message: string, serviceMessage?: string) {
    super(code, message);
    this.status = status;
    this.serviceMessage = serviceMessage;
  }
}
