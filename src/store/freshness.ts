import type { Freshness } from './store-api.js';

/** Beyond any time a store holds: a bound that admits nothing. */
const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * The one rule of what counts as fresh (PROTOCOL.md, rule 1), as the earliest arrival that counts at
 * `now` on the store's clock: a kept section counts when it arrived within `maxAgeMs` of now
 * (--max-age) or at or after `since` (the start of the job the run continues). Times are whole
 * milliseconds, so `at > now - maxAgeMs` is `at >= now - maxAgeMs + 1`, and the two bounds are one:
 * a driver compares a section's arrival with this number and decides nothing of its own.
 */
export function freshFrom({ maxAgeMs, since }: Freshness, now: number): number {
  return Math.min(maxAgeMs === undefined ? NEVER : Math.floor(now) - maxAgeMs + 1, since ?? NEVER);
}
