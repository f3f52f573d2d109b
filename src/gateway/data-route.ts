import type { IncomingMessage, ServerResponse } from 'node:http';
import { QuotaWaitError } from '../errors/index.js';
import { parseDuration } from '../options/duration.js';
import { errorReply, readBody, type Reply } from '../wire/replies.js';
import { RequestRejected } from '../wire/request-validation.js';
import { endpointAt } from '../wire/routes.js';
import type { ClientKey } from '../store/key-store.js';
import { startTimer } from '../throttle/clock.js';
import { budgetMessage, fetchWithinBudget, type BudgetedResult } from './budgeted-call.js';
import { callReply, GatewayStopping } from './call-reply.js';
import { readClientRequest, type ClientRequest } from './client-request.js';
import type { GatewayParts, Handled } from './gateway-parts.js';
import { forbiddenSection } from './key-endpoints.js';
import { rateShareReply } from './key-rates.js';
import { refusalReply } from './logins.js';

/** The largest body taken: 100 items of any sensible size, with room for long meta values. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** How fresh an answer from the store must be for this request (a duration: 30d, 12h, 90s; 0: none from before it). */
const MAX_AGE_HEADER = 'x-propdata-max-age';
/** How long this request may wait for the rate limit (a duration), up to the gateway's --max-wait. */
const MAX_WAIT_HEADER = 'x-propdata-max-wait';

/** A header's duration, the gateway's own when absent; a 400's message when it is not one. */
function headerDuration(request: IncomingMessage, name: string, fallback: number | undefined): number | undefined | { problem: string } {
  const value = request.headers[name];
  if (value === undefined) return fallback;
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  return ms ?? { problem: `${name}: expected a duration such as 30d, 12h or 90s (plain numbers are seconds), got "${String(value)}"` };
}

/**
 * What stops a call: the client leaving, the gateway stopping, and its wait limit (past which a
 * request waiting for its turn, or for another's purchase, is answered 429 with when to come back).
 */
function callSignal(parts: GatewayParts, response: ServerResponse, maxWaitMs: number): { signal: AbortSignal; dispose: () => void } {
  const { clock, upstream } = parts.settings;
  const controller = new AbortController();
  const abort = (reason: unknown) => controller.abort(reason);
  const onClose = () => {
    if (!response.writableFinished) abort(new Error('the client closed the connection'));
  };
  const onStopping = () => abort(new GatewayStopping());
  response.once('close', onClose);
  parts.stopping.addEventListener('abort', onStopping, { once: true });
  const nextReset = () => Math.min(clock.now() + 1000, ...upstream.windows().map((window) => window.resetAt));
  const cancelDeadline = startTimer(clock, maxWaitMs, () => abort(new QuotaWaitError(nextReset(), maxWaitMs)));
  return {
    signal: controller.signal,
    dispose: () => {
      cancelDeadline();
      response.off('close', onClose);
      parts.stopping.removeEventListener('abort', onStopping);
    },
  };
}

/**
 * One client's data request, once its key is known: read by the service's rules, checked against
 * the key's endpoints and budgets, answered through the upstream (the store first), within the
 * request's wait limit. Whatever stops it (the client leaving, the gateway stopping, the wait
 * running out) stops what has not been sent; what was bought is kept, and given back on a retry.
 */
async function answerCall(
  parts: GatewayParts,
  key: ClientKey,
  asked: ClientRequest,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<Handled> {
  const { settings } = parts;
  const maxAgeMs = headerDuration(request, MAX_AGE_HEADER, settings.maxAgeMs);
  const maxWait = headerDuration(request, MAX_WAIT_HEADER, settings.maxWaitMs);
  for (const given of [maxAgeMs, maxWait]) if (typeof given === 'object') return { key: key.name, reply: errorReply(400, given.problem) };
  const maxWaitMs = Math.min(settings.maxWaitMs, maxWait as number);
  const components = asked.items.length * asked.sections.length;
  const turn = parts.rates.take(key, components, settings.clock.now());
  if ('retryAt' in turn) {
    return { key: key.name, reply: rateShareReply(key, turn, components, settings.clock.now(), settings.upstream.rateHeaders()) };
  }
  const { signal, dispose } = callSignal(parts, response, maxWaitMs);
  let fetched: BudgetedResult | undefined;
  try {
    fetched = await fetchWithinBudget(parts, key, asked, { maxAgeMs: maxAgeMs as number | undefined, maxWaitMs, signal });
  } finally {
    dispose();
    parts.rates.giveBack(turn.taken, fetched?.result.spend.components ?? components);
  }
  const { result, refusal } = fetched;
  const reply = callReply(result, {
    rateHeaders: settings.upstream.rateHeaders(),
    now: settings.clock.now(),
    budget: () => {
      // A stop at a budget the call was held within is no refusal of the store's: the key's, as far as this gateway knows.
      const stopped = refusal ?? {
        whose: key.budgetMonth !== undefined ? 'key' : 'account',
        spent: parts.book.figures().month.get(key.name) ?? 0,
      };
      return { whose: stopped.whose, message: budgetMessage(parts, key, stopped) };
    },
  });
  return { key: key.name, reply: withIgnoredKeys(reply, asked.ignoredKeys), items: asked.items.length, fromStore: result.spend.fromStore };
}

/** A character as UTF-8 bytes, each %XX (a lone surrogate as U+FFFD's: never a throw). */
const percentEncoded = (character: string) =>
  [...Buffer.from(character, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/**
 * Keys the spec does not list were left out of what was sent: named, as the sandbox names them,
 * percent-encoded (the client's own text: a CR, a LF or a character beyond Latin-1 cannot stand in
 * a header; a comma would split the list).
 */
function withIgnoredKeys(reply: Reply, ignored: readonly string[]): Reply {
  const names = ignored.map((name) => name.replace(/[^\x21-\x24\x26-\x2b\x2d-\x7e]/gu, percentEncoded));
  return ignored.length === 0 ? reply : { ...reply, headers: { ...reply.headers, 'X-Propdata-Ignored-Keys': names.join(', ') } };
}

/** A request to the service's API: the client's key, then the service's own checks, then the call. */
export async function dataRoute(parts: GatewayParts, request: IncomingMessage, response: ServerResponse, url: URL): Promise<Handled> {
  const login = await parts.logins.client(request);
  if ('refused' in login) return refusalReply(login.refused, 'wrong key or secret');
  const key = login.ok;
  const refuse = (reply: Reply): Handled => ({ key: key.name, reply });
  const endpoint = endpointAt(url.pathname);
  if (!endpoint) return refuse(errorReply(404, `No endpoint at ${url.pathname}: paths are /v2/<level>/<target> as in the catalog`));
  const method = request.method;
  if (method !== 'GET' && method !== 'POST')
    return refuse(errorReply(405, `${method ?? ''} is not supported: use GET or POST`, { Allow: 'GET, POST' }));
  const body = await readBody(request, MAX_BODY_BYTES);
  if (body === undefined) return refuse(errorReply(413, `body larger than ${MAX_BODY_BYTES} bytes: send at most 100 items a request`));
  let asked: ClientRequest;
  try {
    asked = readClientRequest(endpoint, method, url, request.headers['content-type'], body);
  } catch (error) {
    if (error instanceof RequestRejected) return refuse(errorReply(400, error.message));
    throw error;
  }
  const forbidden = forbiddenSection(key.endpoints, asked.sections);
  if (forbidden) {
    return refuse(errorReply(403, `key "${key.name}" may not call ${forbidden.name}; it may call ${key.endpoints!.join(', ')}`));
  }
  return answerCall(parts, key, asked, request, response);
}
