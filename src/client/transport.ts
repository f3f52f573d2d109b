import { Pool } from 'undici';
import type { Timeouts } from './timeouts.js';

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
