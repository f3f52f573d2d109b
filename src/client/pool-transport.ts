import { Pool, ProxyAgent } from 'undici';
import { SYSTEM_CLOCK, type Clock } from '../throttle/clock.js';
import { exchange } from './exchange.js';
import type { Timeouts } from '../policy/policy.js';
import type { Transport } from './transport.js';

/**
 * A batch's transport: one keep-alive pool (undici) for the service's origin, `connections`
 * sockets at most (the batch concurrency). Each exchange's deadline is kept on `clock`; undici's
 * own timeouts (connecting, and its waits for the headers and the body) are a backstop in real time,
 * the latter two the exchange's own deadline (a request may have a longer one than the pool's).
 * A run's requests keep the system's: a test's fake clock jumps while a real socket is pending, and
 * would time out every request (only the transport's own tests give one).
 * Through `proxy`, undici's ProxyAgent keeps the same pool behind CONNECT tunnels (TLS inside them
 * for an https service), the connect timeout covering the proxy and the tunnel's TLS.
 */
export function createPoolTransport(
  origin: string,
  connections: number,
  timeouts: Timeouts,
  clock: Clock = SYSTEM_CLOCK,
  proxy?: URL,
): Transport {
  const poolOptions = {
    connections,
    headersTimeout: timeouts.responseMs,
    bodyTimeout: timeouts.responseMs,
    keepAliveTimeout: 4_000,
  };
  const connect = { timeout: timeouts.connectMs };
  const dispatcher =
    proxy === undefined
      ? new Pool(origin, { ...poolOptions, connect })
      : new ProxyAgent({ ...poolOptions, uri: proxy.href, proxyTls: connect, requestTls: connect });
  return {
    exchange: (request, limits) =>
      exchange(dispatcher, { ...request, origin, headersTimeout: limits.deadlineMs, bodyTimeout: limits.deadlineMs }, limits, clock),
    close: () => dispatcher.close(),
  };
}
