import type { IncomingMessage } from 'node:http';
import { GATEWAY_DOOR } from '../policy/policy.js';
import type { GatewayParts, Handled } from './gateway-parts.js';
import { refusalReply } from './logins.js';
import { METRICS_PATH } from './metrics.js';

/** Liveness and readiness, for a load balancer or an orchestrator: no key, and nothing but a word or two. */
const HEALTH_PATHS = { live: '/healthz', ready: '/readyz' } as const;

/** The paths an operator's tools ask: health without a key, metrics with the admin key. */
export function isOperatorPath(pathname: string): boolean {
  return pathname === HEALTH_PATHS.live || pathname === HEALTH_PATHS.ready || pathname === METRICS_PATH;
}

const text = (status: number, body: string): Handled => ({ reply: { status, body, contentType: 'text/plain; charset=utf-8' } });

/** What the store and the service say to a probe, each within GATEWAY_DOOR.readyProbeMs: undefined when reachable, else why not. */
async function readiness(parts: GatewayParts): Promise<{ store?: string; service?: string }> {
  const { settings } = parts;
  const within = <T>(work: Promise<T>) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${GATEWAY_DOOR.readyProbeMs} ms`)), GATEWAY_DOOR.readyProbeMs);
    });
    return Promise.race([work, late]).finally(() => clearTimeout(timer));
  };
  const why = (error: unknown) => (error instanceof Error ? error.message : String(error));
  const [store, service] = await Promise.all([
    within(parts.ring.refresh()).then(
      () => undefined,
      (error: unknown) => why(error),
    ),
    settings.probeService ? within(settings.probeService()).then(() => undefined, why) : Promise.resolve(undefined),
  ]);
  return { ...(store === undefined ? {} : { store }), ...(service === undefined ? {} : { service }) };
}

/**
 * `/healthz`: the process lives and answers (200). `/readyz`: it can serve, its store answering and
 * the service's address accepting a connection (200), else 503 naming which is not. `/metrics`:
 * Prometheus' text, behind the admin key (user admin), as a scrape config's basic_auth gives it.
 */
export async function operatorRoute(parts: GatewayParts, request: IncomingMessage, pathname: string): Promise<Handled> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'use GET\n');
  if (pathname === HEALTH_PATHS.live) return text(200, 'ok\n');
  if (pathname === HEALTH_PATHS.ready) {
    const { store, service } = await readiness(parts);
    if (store === undefined && service === undefined) return text(200, 'ready\n');
    const lines = [store && `the store: ${store}`, service && `the service: ${service}`].filter(Boolean);
    return text(503, `not ready\n${lines.join('\n')}\n`);
  }
  const login = await parts.logins.admin(request);
  if ('refused' in login)
    return refusalReply(login.refused, 'wrong admin key', { 'WWW-Authenticate': 'Basic realm="propdata gateway metrics"' });
  return {
    reply: { status: 200, body: parts.metrics.text(parts.metricsNow()), contentType: 'text/plain; version=0.0.4; charset=utf-8' },
  };
}
