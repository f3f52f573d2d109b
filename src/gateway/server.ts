import {
  createServer as createHttpServer,
  validateHeaderValue,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { setMaxListeners } from 'node:events';
import { createServer as createHttpsServer } from 'node:https';
import { listenOn, urlOf } from '../wire/listen.js';
import { errorReply, writeReply, type Reply } from '../wire/replies.js';
import { Activity } from './activity.js';
import { adminRoute, isAdminPath, statusOf } from './admin-route.js';
import { clientAddressOf, trustedProxies } from './client-address.js';
import { capConnections } from './connection-cap.js';
import { dataRoute, MAX_BODY_BYTES } from './data-route.js';
import type { GatewayParts, GatewaySettings, Handled } from './gateway-parts.js';
import { KeyRates } from './key-rates.js';
import { KeyRing } from './key-ring.js';
import { LoginThrottle } from './login-throttle.js';
import { Logins } from './logins.js';
import { GatewayMetrics } from './metrics.js';
import { isOperatorPath, operatorRoute } from './operator-route.js';
import { SpendBook } from './spend-book.js';
import type { GatewayStatus } from './status.js';
import { GATEWAY_DOOR, GATEWAY_WAITS } from '../policy/policy.js';

export type { GatewayRequestLog, GatewaySettings } from './gateway-parts.js';

export interface RunningGateway {
  url: string;
  status(): GatewayStatus;
  /**
   * Stops taking requests; those in flight get `graceMs` to finish (what they bought is kept either
   * way), then the ones still waiting for their turn are answered 503; resolves once all are answered.
   */
  close(graceMs?: number): Promise<void>;
}

/** On every answer: nothing is cached, nothing is sniffed. */
const COMMON_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

/** The HTTP(S) server, its request timeouts held. */
function createServer(settings: GatewaySettings, handler: (request: IncomingMessage, response: ServerResponse) => void): Server {
  // A client has headersTimeout to send its headers and requestTimeout its whole request, each
  // looked at every second (Node's default is 30 s: a slow body was cut at 85 s, not 60).
  const timeouts = settings.requestTimeouts ?? { headersMs: GATEWAY_WAITS.headersTimeoutMs, requestMs: GATEWAY_WAITS.requestTimeoutMs };
  const options: ServerOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: GATEWAY_DOOR.timeoutCheckMs,
  };
  return settings.tls
    ? createHttpsServer({ ...options, cert: settings.tls.cert, key: settings.tls.key }, handler)
    : createHttpServer(options, handler);
}

/**
 * `propdata serve`: an HTTP(S) server that speaks the service's API, as the sandbox does (same
 * paths, GET and POST, component_mget, Basic auth, bodies and errors), for the account's clients,
 * each with a key of its own; and a status page for the operator at `/`.
 */
export async function startGateway(settings: GatewaySettings): Promise<RunningGateway> {
  const { clock } = settings;
  const problem = (error: unknown) => settings.onProblem?.(error instanceof Error ? error.message : String(error));
  const ring = new KeyRing(settings.store.keys, problem, () => clock.now());
  const book = new SpendBook(settings.store, settings.account, settings.upstream.run, () => clock.now());
  await Promise.all([ring.refresh(), book.refresh()]);
  const throttle = new LoginThrottle(settings.loginThrottle);
  const trusted = trustedProxies(settings.trustProxy);
  const addressOf = (request: IncomingMessage) => clientAddressOf(request, trusted);
  const stopping = new AbortController();
  // Every call in flight listens for the stop, and lets go as it ends: many at once is the gateway's
  // ordinary day, not the leak Node's default warning (past 10 listeners) guesses at.
  setMaxListeners(0, stopping.signal);
  const inFlight = new Set<Promise<void>>();
  let connectionsOpen = () => 0;
  const parts: GatewayParts = {
    settings,
    logins: new Logins(ring, throttle, settings.adminKey, clock, addressOf),
    ring,
    throttle,
    activity: new Activity(),
    book,
    metrics: new GatewayMetrics(),
    metricsNow: () => ({
      windows: settings.upstream.windows(),
      waiting: settings.upstream.waiting(),
      figures: book.figures(),
      budgets: new Map([...ring.keys].map(([name, key]) => [name, key.budgetMonth])),
      connections: connectionsOpen(),
      heldLogins: throttle.held,
      inFlight: parts.activity.inFlight,
      claimsHeld: settings.upstream.claimsHeld(),
    }),
    addressOf,
    rates: new KeyRates(),
    stopping: stopping.signal,
    startedAt: clock.now(),
  };
  const refresher = setInterval(() => {
    ring.refresh().catch(problem);
    book.refresh().catch(problem);
  }, settings.refreshMs ?? GATEWAY_WAITS.refreshMs);
  refresher.unref();

  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const work = handle(parts, request, response).catch((error: unknown) => {
      problem(error);
      if (!response.headersSent) writeReply(response, errorReply(500, 'the gateway failed: its log says why'), COMMON_HEADERS);
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const server = createServer(settings, handler);
  const cap = capConnections(server, settings.maxConnections ?? GATEWAY_DOOR.maxConnections);
  connectionsOpen = () => cap.open();
  const port = await listenOn(server, settings.host, settings.port, 'serve');
  return {
    url: urlOf(settings.tls ? 'https' : 'http', settings.host, port),
    status: () => statusOf(parts),
    close: async (graceMs: number = GATEWAY_WAITS.drainMs) => {
      server.close();
      server.closeIdleConnections();
      const drained = Promise.all(inFlight);
      await Promise.race([drained, clock.sleep(graceMs)]);
      stopping.abort();
      await drained;
      server.closeAllConnections();
      clearInterval(refresher);
      await book.flush();
    },
  };
}

/**
 * The request's URL. A path beginning `//` is a path, not a host (`GET //v2/property/value`, a
 * client joining a base URL ending in a slash): runs of slashes are read as one.
 */
function requestUrl(request: IncomingMessage): URL {
  const raw = request.url ?? '/';
  let url: URL;
  try {
    url = raw.startsWith('/') ? new URL(`http://gateway.invalid${raw}`) : new URL(raw, 'http://gateway.invalid');
  } catch {
    url = new URL('http://gateway.invalid/');
  }
  url.pathname = url.pathname.replace(/\/{2,}/g, '/');
  return url;
}

/** The route a request goes to, by its path. */
function route(parts: GatewayParts, request: IncomingMessage, response: ServerResponse, url: URL): Promise<Handled> | Handled {
  const declared = Number(request.headers['content-length'] ?? 0);
  // Refused before a byte of it is read, and the connection with it.
  if (declared > MAX_BODY_BYTES)
    return {
      reply: errorReply(413, `body larger than ${MAX_BODY_BYTES} bytes: send at most 100 items a request`, { Connection: 'close' }),
    };
  if (isOperatorPath(url.pathname)) return operatorRoute(parts, request, url.pathname);
  if (isAdminPath(url.pathname)) return adminRoute(parts, request, url.pathname);
  return dataRoute(parts, request, response, url);
}

/**
 * Why a request ended before it could be answered, or undefined when it did not: its body too
 * slow (Node answered 408 at requestTimeout), or its client gone.
 */
function cutShort(request: IncomingMessage, elapsedMs: number, limit: number): string | undefined {
  if (!request.destroyed || request.complete) return undefined;
  return elapsedMs >= limit - GATEWAY_DOOR.timeoutCheckMs
    ? `cut: the request did not arrive whole within ${limit / 1000} s (requestTimeout)`
    : 'cut: the client closed the connection before its request arrived whole';
}

/** One request: answered, logged, counted, and noted on the status page when refused. */
async function handle(parts: GatewayParts, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { settings } = parts;
  const started = performance.now();
  const url = requestUrl(request);
  const address = parts.addressOf(request);
  let handled: Handled;
  try {
    handled = await route(parts, request, response, url);
  } catch (error) {
    const cut = cutShort(request, performance.now() - started, settings.requestTimeouts?.requestMs ?? GATEWAY_WAITS.requestTimeoutMs);
    if (cut === undefined) throw error;
    handled = { reply: { status: 408 }, cut };
  }
  if (!response.destroyed)
    writeReply(
      response,
      withValidHeaders(handled.reply, (message) => settings.onProblem?.(message)),
      COMMON_HEADERS,
    );
  const now = settings.clock.now();
  const elapsedMs = performance.now() - started;
  const { status } = handled.reply;
  parts.metrics.answered(handled.key, status, elapsedMs);
  if (status >= 300 && (status !== 401 || handled.refusal) && handled.cut === undefined)
    parts.activity.refused({
      at: now,
      ...(handled.key ? { key: handled.key } : {}),
      address,
      status,
      reason: handled.refusal ?? reasonOf(handled.reply.body),
    });
  settings.onRequest?.({
    at: now,
    ...(handled.key ? { key: handled.key } : {}),
    address,
    method: request.method ?? 'GET',
    path: url.pathname,
    status,
    ...(handled.items !== undefined ? { items: handled.items, fromStore: handled.fromStore ?? 0 } : {}),
    elapsedMs,
    ...(handled.cut ? { cut: handled.cut } : {}),
  });
}

/**
 * The reply with only the headers Node can send: a value it would refuse (a control character,
 * text beyond Latin-1) is dropped, and said in the log, rather than the answer, bought already,
 * turned into a 500.
 */
function withValidHeaders(reply: Reply, onProblem: ((message: string) => void) | undefined): Reply {
  if (!reply.headers) return reply;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.headers)) {
    try {
      validateHeaderValue(name, value);
      headers[name] = value;
    } catch {
      onProblem?.(`header ${name} left out of a ${reply.status} answer: its value is not one HTTP can carry`);
    }
  }
  return { ...reply, headers };
}

/** An error reply's message, for the status page's refusals. */
function reasonOf(body: unknown): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : 'no explanation';
}
