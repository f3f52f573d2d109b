import { Pool } from 'undici';

export interface Timeouts {
  connectMs: number;
  /**
   * The whole exchange, from sending to the body's last byte: a deadline, not an idle timer (a
   * server dripping a byte a second would otherwise hold a request forever). It also bounds
   * undici's own waits for the headers and between body chunks.
   */
  responseMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, responseMs: 60_000 };

/** One keep-alive pool for the service's origin; `connections` caps the sockets (the batch concurrency). */
export function createPool(origin: string, connections: number, timeouts: Timeouts): Pool {
  return new Pool(origin, {
    connections,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.responseMs,
    bodyTimeout: timeouts.responseMs,
    keepAliveTimeout: 4_000,
  });
}
