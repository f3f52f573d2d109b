import { FakeClock } from './fake-clock.js';
import type { strictService } from './strict-service.js';
import { decideRetry, NO_ATTEMPTS, type Attempts } from '../../src/client/retry-policy.js';
import { DEFAULT_RETRY_POLICY } from '../../src/policy/policy.js';
import { RateLimitedError } from '../../src/errors/index.js';
import { retryAfterRateLimit } from '../../src/throttle/rate-headers.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/policy/policy.js';
import { RateLimiter, type Reservation } from '../../src/throttle/rate-limiter.js';
import type { SharedPacer } from '../../src/throttle/shared-pacer.js';

/**
 * Jobs on separate machines sharing one account, in virtual time: jobs that drive their own
 * limiters as the pipeline does, against a strict service with fixed windows (strict-service.ts). Used by the behaviour
 * tests (test/throttle/across-machines.test.ts) and the start-phase sweep (npm run bench, sweep).
 */

/** A seeded random: the same jitter every run. */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * One job on its own machine (or, given `pacer`, one sharing a store with the others), as the
 * pipeline drives its limiter: batches of 100 (four at a time), each sent in the parts the windows
 * grant; a 429 is refunded, its headers observed, and the part waits for the reset (with the retry
 * policy's margin and jitter) before it is sent again.
 */
export async function job(
  startAt: number,
  components: number,
  service: ReturnType<typeof strictService>,
  clock: FakeClock,
  random: () => number,
  transitMs: number,
  pacer?: SharedPacer,
) {
  await clock.sleep(startAt - clock.now());
  const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, clock);
  if (pacer) limiter.shareWith(pacer);
  let next = 0;
  let lastAnswer = 0;
  const send = async (size: number, row: number, attempts: Attempts): Promise<void> => {
    const sending: Promise<void>[] = [];
    for await (const reservation of limiter.grants(size, { unit: 1, priority: row })) sending.push(sendPart(reservation, row, attempts));
    await Promise.all(sending);
  };
  const sendPart = async (reservation: Reservation, row: number, attempts: Attempts): Promise<void> => {
    await clock.sleep(transitMs);
    const answer = service.arrive(reservation.components);
    await clock.sleep(transitMs);
    if (!answer.ok) limiter.refund(reservation);
    limiter.observe(reservation, answer.windows);
    if (answer.ok) {
      lastAnswer = clock.now();
      return;
    }
    const refused = new RateLimitedError(undefined, retryAfterRateLimit(answer.windows, clock.now()));
    const decision = decideRetry(refused, attempts, DEFAULT_RETRY_POLICY, clock.now(), random);
    if (decision.action !== 'wait') throw new Error(`gave up: ${decision.action}`);
    limiter.pauseUntil(decision.until);
    await send(reservation.components, row, decision.next);
  };
  const sender = async () => {
    while (next < components) {
      const size = Math.min(100, components - next);
      const row = next;
      next += size;
      await send(size, row, NO_ATTEMPTS);
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
  return { components, lastAnswer };
}

/** Jain's fairness index: 1 when every job had the same throughput, 1/n when one had it all. */
export const jain = (values: readonly number[]) =>
  values.reduce((a, b) => a + b, 0) ** 2 / (values.length * values.reduce((a, b) => a + b * b, 0));
