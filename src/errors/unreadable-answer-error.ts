import { ServiceError, type ResponseHeaders } from './service-error.js';

/**
 * A success status (2xx) whose body holds no chunks to read: malformed JSON, an HTML page, an
 * empty body, `null`, a bare 204. The service may have served the request, and charged it, before
 * whatever went wrong on the way back: it is asked once more (RetryPolicy.maxUnreadableRetries),
 * not five times, and the retry is counted as possibly charged.
 */
export class UnreadableAnswerError extends ServiceError {
  constructor(path: string, status: number, problem: string, headers?: ResponseHeaders) {
    super(
      'E_UNREADABLE_ANSWER',
      status,
      `unreadable answer to ${path} (HTTP ${status}): ${problem}; it may have been charged`,
      undefined,
      headers,
    );
  }
}
