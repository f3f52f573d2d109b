import type { Freshness } from './store-api.js';

/** Beyond any time a store holds: a bound that admits nothing. */
const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * Freshness as a query applies it at `now`, the store's clock: a kept section counts when its
 * arrival is after `newerThan` (--max-age) or at or after `since` (the job's start). One rule for
 * every driver.
 */
export function freshnessBounds({ maxAgeMs, since }: Freshness, now: number): { newerThan: number; since: number } {
  return { newerThan: maxAgeMs === undefined ? NEVER : now - maxAgeMs, since: since ?? NEVER };
}
