import type { IncomingMessage, ServerResponse } from 'node:http';
import { QuotaWaitError } from '../errors/index.js';
import { parseDuration } from '../options/duration.js';
import { itemCostOf, sectionPricesOf } from '../pipeline/pricing.js';
import { errorReply, readBody, type Reply } from '../wire/replies.js';
import { RequestRejected } from '../wire/request-validation.js';
import { endpointAt } from '../wire/routes.js';
import type { ClientKey } from '../store/key-store.js';
import { startTimer } from '../throttle/clock.js';
import { callReply, GatewayStopping } from './call-reply.js';
import { readClientRequest, type ClientRequest } from './client-request.js';
import type { GatewayParts, Handled } from './gateway-parts.js';
import { forbiddenSection } from './key-endpoints.js';
import type { UpstreamResult } from './upstream.js';

/** The largest body taken: 100 items of any sensible size, with room for long meta values. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** How fresh an answer from the store must be for this request (a duration: 30d, 12h, 90s; 0: none from before it). */
export const MAX_AGE_HEADER = 'x-propdata-max-age';
/** How long this request may wait for the rate limit (a duration), up to the gateway's --max-wait. */
export const MAX_WAIT_HEADER = 'x-propdata-max-wait';

/** A header's duration, the gateway's own when absent; a 400's message when it is not one. */
function headerDuration(request: IncomingMessage, name: string, fallback: number | undefined): number | undefined | { problem: string } {
  const value = request.headers[name];
  if (value === undefined) return fallback;
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  return ms ?? { problem: `${name}: expected a duration such as 30d, 12h or 90s (plain numbers are seconds), got "${String(value)}"` };
}

/** What the key and the account may still spend, and whose budget is the nearer; undefined: neither has one. */
function allowanceOf(parts: GatewayParts, key: ClientKey): { usd: number; whose: 'key' | 'account' } | undefined {
  const { book } = parts;
  const maxCostMonth = parts.settings.maxCostMonth;
  const keyLeft = key.budgetMonth === undefined ? undefined : key.budgetMonth - book.keyMonth(key.name);
  const accountLeft = maxCostMonth === undefined ? undefined : maxCostMonth - book.accountMonth();
  if (keyLeft === undefined && accountLeft === undefined) return undefined;
  if (accountLeft === undefined || (keyLeft !== undefined && keyLeft <= accountLeft)) return { usd: Math.max(0, keyLeft!), whose: 'key' };
  return { usd: Math.max(0, accountLeft), whose: 'account' };
}

/** The 402's message: the budget reached, named, with what is spent. */
function budgetMessage(parts: GatewayParts, key: ClientKey, whose: 'key' | 'account'): string {
  const usd = (n: number) => n.toFixed(2);
  if (whose === 'key') {
    return `key "${key.name}" has reached its budget of ${usd(key.budgetMonth!)} USD this month (${usd(parts.book.keyMonth(key.name))} USD spent at list price): what the store holds is still answered; ask the gateway's operator for more`;
  }
  return `the account's budget of ${usd(parts.settings.maxCostMonth!)} USD this month (--max-cost-month) is reached (${usd(parts.book.accountMonth())} USD spent at list price): what the store holds is still answered`;
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
 * The call through the upstream, within the budgets: what the key (and the account) may still
 * spend is held for it while it runs, so that calls in flight together cannot pass a budget.
 */
async function fetchWithinBudget(
  parts: GatewayParts,
  key: ClientKey,
  asked: ClientRequest,
  limits: { maxAgeMs: number | undefined; maxWaitMs: number; signal: AbortSignal },
): Promise<{ result: UpstreamResult; whose: 'key' | 'account' }> {
  const { book, activity, settings } = parts;
  const allowance = allowanceOf(parts, key);
  const worstCase = asked.items.length * itemCostOf(asked.target, sectionPricesOf(asked.target)).price;
  const reserved = allowance === undefined ? 0 : Math.min(allowance.usd, worstCase);
  book.reserve(key.name, reserved);
  activity.begin(key.name, settings.clock.now());
  let result: UpstreamResult | undefined;
  try {
    result = await settings.upstream.fetch({
      target: asked.target,
      items: asked.items,
      params: {},
      client: key.name,
      ...limits,
      ...(allowance ? { maxCost: reserved } : {}),
    });
    book.add(key.name, asked.sections.map((endpoint) => endpoint.name).join(','), result.spend);
  } finally {
    book.release(key.name, reserved);
    const answered = result?.answers.filter((answer) => answer.kind === 'answer').length ?? 0;
    activity.end(key.name, settings.clock.now(), answered, result?.spend.fromStore ?? 0);
  }
  return { result, whose: allowance?.whose ?? 'key' };
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
  const { signal, dispose } = callSignal(parts, response, maxWaitMs);
  let fetched: Awaited<ReturnType<typeof fetchWithinBudget>>;
  try {
    fetched = await fetchWithinBudget(parts, key, asked, { maxAgeMs: maxAgeMs as number | undefined, maxWaitMs, signal });
  } finally {
    dispose();
  }
  const { result, whose } = fetched;
  const reply = callReply(result, {
    rateHeaders: settings.upstream.rateHeaders(),
    now: settings.clock.now(),
    budgetMessage: () => budgetMessage(parts, key, whose),
  });
  return { key: key.name, reply: withIgnoredKeys(reply, asked.ignoredKeys), items: asked.items.length, fromStore: result.spend.fromStore };
}

/** Keys the spec does not list were left out of what was sent: named, as the sandbox names them. */
function withIgnoredKeys(reply: Reply, ignored: readonly string[]): Reply {
  return ignored.length === 0 ? reply : { ...reply, headers: { ...reply.headers, 'X-Propdata-Ignored-Keys': ignored.join(', ') } };
}

/** A request to the service's API: the client's key, then the service's own checks, then the call. */
export async function dataRoute(parts: GatewayParts, request: IncomingMessage, response: ServerResponse, url: URL): Promise<Handled> {
  const login = await parts.logins.client(request);
  if ('refused' in login) return { reply: { status: 401 }, ...(login.refused === 'wrong' ? { refusal: 'wrong key or secret' } : {}) };
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
