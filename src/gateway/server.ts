import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { listenOn, urlOf } from '../wire/listen.js';
import { errorReply, writeReply } from '../wire/replies.js';
import { Activity } from './activity.js';
import { adminRoute, isAdminPath, statusOf } from './admin-route.js';
import { dataRoute, MAX_BODY_BYTES } from './data-route.js';
import type { GatewayParts, GatewaySettings, Handled } from './gateway-parts.js';
import { KeyRing } from './key-ring.js';
import { LoginThrottle } from './login-throttle.js';
import { Logins } from './logins.js';
import { SpendBook } from './spend-book.js';
import type { GatewayStatus } from './status.js';
import { GATEWAY_WAITS } from '../policy/policy.js';

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

/**
 * `propdata serve`: an HTTP(S) server that speaks the service's API, as the sandbox does (same
 * paths, GET and POST, component_mget, Basic auth, bodies and errors), for the account's clients,
 * each with a key of its own; and a status page for the operator at `/`.
 */
export async function startGateway(settings: GatewaySettings): Promise<RunningGateway> {
  const { clock } = settings;
  const ring = new KeyRing(settings.store.keys);
  const book = new SpendBook(settings.store, settings.account, settings.upstream.run, () => clock.now());
  await Promise.all([ring.refresh(), book.refresh()]);
  const throttle = new LoginThrottle(settings.loginThrottle);
  const stopping = new AbortController();
  const parts: GatewayParts = {
    settings,
    logins: new Logins(ring, throttle, settings.adminKey, clock),
    ring,
    throttle,
    activity: new Activity(),
    book,
    stopping: stopping.signal,
    startedAt: clock.now(),
  };
  const problem = (error: unknown) => settings.onProblem?.(error instanceof Error ? error.message : String(error));
  const refresher = setInterval(() => {
    ring.refresh().catch(problem);
    book.refresh().catch(problem);
  }, settings.refreshMs ?? GATEWAY_WAITS.refreshMs);
  refresher.unref();

  const inFlight = new Set<Promise<void>>();
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const work = handle(parts, request, response).catch((error: unknown) => {
      problem(error);
      if (!response.headersSent) writeReply(response, errorReply(500, 'the gateway failed: its log says why'), COMMON_HEADERS);
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const server: Server = settings.tls
    ? createHttpsServer({ cert: settings.tls.cert, key: settings.tls.key }, handler)
    : createHttpServer(handler);
  // A client has this long to send a whole request: a slow one cannot hold a connection open.
  server.headersTimeout = GATEWAY_WAITS.headersTimeoutMs;
  server.requestTimeout = GATEWAY_WAITS.requestTimeoutMs;
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

/** One request: answered, logged, and noted on the status page when refused. */
async function handle(parts: GatewayParts, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { settings } = parts;
  const started = performance.now();
  const url = new URL(request.url ?? '/', 'http://gateway.invalid');
  const declared = Number(request.headers['content-length'] ?? 0);
  let handled: Handled;
  if (declared > MAX_BODY_BYTES) {
    // Refused before a byte of it is read, and the connection with it.
    handled = {
      reply: errorReply(413, `body larger than ${MAX_BODY_BYTES} bytes: send at most 100 items a request`, { Connection: 'close' }),
    };
  } else {
    handled = isAdminPath(url.pathname) ? await adminRoute(parts, request, url.pathname) : await dataRoute(parts, request, response, url);
  }
  if (!response.destroyed) writeReply(response, handled.reply, COMMON_HEADERS);
  const now = settings.clock.now();
  const { status } = handled.reply;
  if (status >= 300 && (status !== 401 || handled.refusal))
    parts.activity.refused({
      at: now,
      ...(handled.key ? { key: handled.key } : {}),
      status,
      reason: handled.refusal ?? reasonOf(handled.reply.body),
    });
  settings.onRequest?.({
    at: now,
    ...(handled.key ? { key: handled.key } : {}),
    method: request.method ?? 'GET',
    path: url.pathname,
    status,
    ...(handled.items !== undefined ? { items: handled.items, fromStore: handled.fromStore ?? 0 } : {}),
    elapsedMs: performance.now() - started,
  });
}

/** An error reply's message, for the status page's refusals. */
function reasonOf(body: unknown): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : 'no explanation';
}
