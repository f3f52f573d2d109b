import { QuotaWaitError } from '../errors/index.js';
import type { Pacer } from '../pipeline/send-batch.js';
import type { AcquireOptions, RateLimiter, Reservation } from '../throttle/rate-limiter.js';
import type { FairShare } from './fair-share.js';

/** What a call's wait is judged by: when the windows let components through, and the call's limit. */
export interface WaitLimit {
  /** When `components` could go at the earliest (AccountWindows.readyAt), and the window that decides it. */
  readyAt(components: number): { at: number };
  now(): number;
  /** The longest this call waits for the rate limit. */
  maxWaitMs: number;
}

/**
 * One client's view of the gateway's one rate limiter: every part of its requests asks the limiter
 * at the priority its fair-queue tag gives (FairShare), so the account's windows go to the clients
 * in turns, and the gateway as a whole paces as one client of the service. A request that would
 * wait past the call's limit behind what is queued is refused at once (QuotaWaitError, a 429 to
 * the client with the time it could go), not after the wait.
 */
export function fairPacer(limiter: RateLimiter, share: FairShare, client: string, limit: WaitLimit): Pacer {
  async function* grants(components: number, options: AcquireOptions): AsyncGenerator<Reservation> {
    const ready = limit.readyAt(share.ahead(client, components) + components).at;
    if (ready - limit.now() > limit.maxWaitMs) throw new QuotaWaitError(ready, limit.maxWaitMs);
    let start = share.join(client, components);
    let left = components;
    try {
      while (left > 0) {
        const reservation = await limiter.acquire(left, { ...options, priority: start, maxWaitMs: limit.maxWaitMs });
        share.served(client, start, reservation.components);
        start += reservation.components;
        left -= reservation.components;
        yield reservation;
      }
    } finally {
      if (left > 0) share.withdrawn(client, left);
    }
  }
  return {
    grants,
    observe: (reservation, reported) => limiter.observe(reservation, reported),
    refund: (reservation) => limiter.refund(reservation),
    pauseUntil: (until) => limiter.pauseUntil(until),
    serviceClock: limiter.serviceClock,
  };
}
