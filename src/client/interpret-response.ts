import {
  AuthError,
  BadRequestError,
  BudgetReachedError,
  CreditExhaustedError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  UnreadableAnswerError,
  type ResponseHeaders,
} from '../errors/index.js';
import type { Chunk } from '../model/chunk.js';
import { retryAtAfter429, type ToLocalTime } from '../throttle/rate-headers.js';
import { BUDGET_HEADER } from './gateway-budget.js';
import type { RawResponse } from './service-client.js';

const PAYMENT_WORDS = /payment|credit|pay-as-you-go|billing|upgrade/i;

/** A proxy's or a server's error page rather than anything the service writes. */
const isHtmlPage = (body: string) => body.trimStart().startsWith('<');

function serviceMessage(body: string): string | undefined {
  if (body.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && 'message' in parsed) return String(parsed.message);
    return JSON.stringify(parsed);
  } catch {
    // An HTML error page from a proxy: its text is noise, its size is not a message.
    return body.length > 200 || isHtmlPage(body) ? undefined : body.trim();
  }
}

/** An answer's headers as an error carries them to its caller: an echoed credential scrubbed, as from the body. */
const headersOf = (response: RawResponse): ResponseHeaders =>
  Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, response.redact(value)]));

/**
 * Turns a response into chunks, or throws the error class for its status. The spec's error
 * table is the map: 400 explanation, 401 empty, 429 with rate headers, and (not shown in the spec)
 * credit exhaustion as 402 or a payment-asking 4xx, and 403 as a refusal no item can fix. A success
 * without chunks to read (a 200 that is not JSON, `null`, a bare 204) is an UnreadableAnswerError. A 429's
 * retry time is local: `now` on the run's clock, the service's times through `toLocal` (ServiceClock).
 * Each error carries the answer's status and headers (and so its request id, when it has one).
 */
export function interpretResponse(response: RawResponse, path: string, now: number = Date.now(), toLocal?: ToLocalTime): Chunk[] {
  const { status, body } = response;
  if (status === 200) return parseChunks(body, path, response);
  const headers = headersOf(response);
  // A success the spec does not describe (a bare 204): served, perhaps charged, and nothing to read.
  if (status > 200 && status < 300) {
    throw new UnreadableAnswerError(path, status, 'a success status other than 200 carries no chunks', headers);
  }
  const raw = serviceMessage(body);
  const message = raw === undefined ? undefined : response.redact(raw);
  if (status === 401) throw new AuthError(headers);
  // A gateway's budget (its key's, or the account's there), named by the gateway: exit 4, as --max-cost's.
  if (status === 402 && response.headers[BUDGET_HEADER.toLowerCase()] !== undefined) {
    throw new BudgetReachedError(`the gateway refused the request: ${message ?? 'a budget is reached'}`);
  }
  if (status === 402 || (status >= 400 && status < 500 && message !== undefined && PAYMENT_WORDS.test(message) && status !== 429)) {
    throw new CreditExhaustedError(status, message, headers);
  }
  if (status === 403) throw new ForbiddenError(message, headers);
  if (status === 429) throw new RateLimitedError(message, retryAtAfter429(response.headers, now, toLocal), headers);
  if (status === 404) throw new NotFoundError(path, message, headers);
  if (status === 400 || (status > 400 && status < 500)) throw new BadRequestError(message ?? `HTTP ${status}`, headers);
  throw new ServerError(status, message ?? (body.trim() === '' ? 'empty response' : 'non-JSON error page'), headers);
}

/** What a 200's body is instead of chunks, in words. */
function notChunks(body: string, parsed?: unknown): string {
  if (parsed !== undefined) return `${parsed === null ? 'JSON null' : `a JSON ${typeof parsed}`}, not an array of chunks`;
  if (body.trim() === '') return 'an empty body';
  return isHtmlPage(body) ? 'an HTML page, not JSON' : 'a body that is not JSON';
}

function parseChunks(body: string, path: string, response: RawResponse): Chunk[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new UnreadableAnswerError(path, 200, notChunks(body), headersOf(response));
  }
  // The spec notes a geocode example with a bare object; the stated rule is an array of chunks.
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return [parsed as Chunk];
  if (!Array.isArray(parsed)) throw new UnreadableAnswerError(path, 200, notChunks(body, parsed), headersOf(response));
  return parsed as Chunk[];
}
