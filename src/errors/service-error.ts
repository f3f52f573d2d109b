import { PropdataError } from './propdata-error.js';

/** An answer's response headers, names lower-cased, several values of one name joined by `, `. */
export type ResponseHeaders = Readonly<Record<string, string>>;

/**
 * The header a request id would come in. The spec names none; services that give one mostly use
 * this name, so an id is read from it when the service sends it, and is undefined otherwise.
 */
const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The service answered with an HTTP error. `status` and the parsed `message` travel with it so the
 * batch pipeline can decide per batch (retry, record on items, stop) without parsing text; the
 * answer's `headers` (a 429's X-RateLimit-*, a proxy's own) and `requestId` travel with it for a
 * library caller, as an SDK's errors carry them.
 */
export class ServiceError extends PropdataError {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** What the service said, as its body put it (`message` of a JSON body), when it said anything. */
  readonly serviceMessage: string | undefined;
  /** The answer's headers, credentials redacted; empty for an error not built from an answer. */
  readonly headers: ResponseHeaders;
  /** The service's id of the request (its X-Request-Id header), when it gives one. */
  readonly requestId: string | undefined;

  constructor(code: string, status: number, message: string, serviceMessage?: string, headers: ResponseHeaders = {}) {
    super(code, message);
    this.status = status;
    this.serviceMessage = serviceMessage;
    this.headers = headers;
    this.requestId = headers[REQUEST_ID_HEADER];
  }
}
