import {
  AuthError,
  BadRequestError,
  CreditExhaustedError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServerError,
} from '../errors/index.js';
import type { Chunk } from '../model/chunk.js';
import { retryAtAfter429, type ToLocalTime } from '../throttle/rate-headers.js';
import type { RawResponse } from './service-client.js';

const PAYMENT_WORDS = /payment|credit|pay-as-you-go|billing|upgrade/i;

function serviceMessage(body: string): string | undefined {
  if (body.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && 'message' in parsed) return String(parsed.message);
    return JSON.stringify(parsed);
  } catch {
    // An HTML error page from a proxy: its text is noise, its size is not a message.
    return body.length > 200 || body.trimStart().startsWith('<') ? undefined : body.trim();
  }
}

/**
 * Turns a response into chunks, or throws the error class for its status. The spec's error
 * table is the map: 400 explanation, 401 empty, 429 with rate headers, and (not shown in the spec)
 * credit exhaustion as 402 or a payment-asking 4xx, and 403 as a refusal no item can fix. A 429's
 * retry time is local: `now` on the run's clock, the service's times through `toLocal` (ServiceClock).
 */
export function interpretResponse(response: RawResponse, path: string, now: number = Date.now(), toLocal?: ToLocalTime): Chunk[] {
  const { status, body } = response;
  if (status === 200) return parseChunks(body, path);
  const raw = serviceMessage(body);
  const message = raw === undefined ? undefined : response.redact(raw);
  if (status === 401) throw new AuthError();
  if (status === 402 || (status >= 400 && status < 500 && message !== undefined && PAYMENT_WORDS.test(message) && status !== 429)) {
    throw new CreditExhaustedError(status, message);
  }
  if (status === 403) throw new ForbiddenError(message);
  if (status === 429) throw new RateLimitedError(message, retryAtAfter429(response.headers, now, toLocal));
  if (status === 404) throw new NotFoundError(path, message);
  if (status === 400 || (status > 400 && status < 500)) throw new BadRequestError(message ?? `HTTP ${status}`);
  throw new ServerError(status, message ?? (body.trim() === '' ? 'empty response' : 'non-JSON error page'));
}

function parseChunks(body: string, path: string): Chunk[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new ServerError(200, `the response to ${path} is not JSON`);
  }
  // The spec notes a geocode example with a bare object; the stated rule is an array of chunks.
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return [parsed as Chunk];
  if (!Array.isArray(parsed)) throw new ServerError(200, `the response to ${path} is not an array of chunks`);
  return parsed as Chunk[];
}
