import { Pool } from 'undici';

export interface Timeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, headersMs: 60_000, bodyMs: 60_000 };

/** One keep-alive pool for the service's origin; `connections` caps the sockets (the batch concurrency). */
export function createPool(origin: string, connections: number, timeouts: Timeouts): Pool {
  return new Pool(origin, {
    connections,
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    keepAliveTimeout: 4_000,
  });
}
