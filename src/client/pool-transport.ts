import { Pool } from 'undici';
import { exchange } from './exchange.js';
import type { Timeouts } from './timeouts.js';
import type { Transport } from './transport.js';

/**
 * A batch's transport: one keep-alive pool (undici) for the service's origin, `connections`
 * sockets at most (the batch concurrency).
 */
export function createPoolTransport(origin: string, connections: number, timeouts: Timeouts): Transport {
  const pool = new Pool(origin, {
    connections,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.responseMs,
    bodyTimeout: timeouts.responseMs,
    keepAliveTimeout: 4_000,
  });
  return {
    exchange: (request, limits) => exchange(pool, request, limits),
    close: () => pool.close(),
  };
}
