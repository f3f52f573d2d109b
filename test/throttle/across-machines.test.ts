import { describe, expect, it } from 'vitest';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { jain, job, seeded } from '../helpers/one-account.js';
import { strictService } from '../helpers/strict-service.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/policy/policy.js';
import { RateLimiter, type Reservation } from '../../src/throttle/rate-limiter.js';
import { idealLastSend } from '../bench/fixed-windows.mjs';

describe('jobs on separate machines sharing one account (no shared store)', () => {
  for (const limits of [
    [{ limit: 250, periodSeconds: 6 }],
    [
      { limit: 50, periodSeconds: 1 },
      { limit: 250, periodSeconds: 10 },
    ],
  ]) {
    for (const jobs of [2, 4, 8]) {
      const name = limits.map((l) => `${l.limit}/${l.periodSeconds}`).join('+');
      it(`${jobs} jobs started within half a second fill the windows and share them fairly, with few 429s (${name})`, async () => {
        for (const seed of [1, 2, 3]) {
          const random = seeded(seed * 10 + jobs);
          // The windows' phase at the start, each job's start (as a crontab's processes come up) and its round trip.
          const start = FAKE_EPOCH + Math.floor(random() * 10_000);
          const clock = new FakeClock(start);
          const service = strictService(limits, clock);
          const each = Math.ceil(2_000 / jobs);
          const results = await Promise.all(
            Array.from({ length: jobs }, () =>
              job(start + Math.floor(random() * 500), each, service, clock, random, 2 + Math.floor(random() * 5)),
            ),
          );
          // Combined, against a perfect client sending the same requests from the same first one.
          const first = service.counted[0]!.at;
          const last = service.counted.at(-1)!.at;
          // One each at the start (a job whose first request comes after another's start grace is
          // refused, unseen), and at most one per job per 10 windows of the run.
          const windows = (last - first) / Math.min(...limits.map((l) => l.periodSeconds * 1000));
          expect(service.refused).toBeLessThanOrEqual(Math.max(jobs, Math.floor((jobs * windows) / 10)));
          const ideal = idealLastSend(
            first,
            service.counted.map((c) => c.components),
            limits,
          );
          expect((ideal - first) / (last - first)).toBeGreaterThanOrEqual(0.95);
          const seconds = results.map((r) => (r.lastAnswer - first) / 1000);
          expect(jain(results.map((r, i) => r.components / seconds[i]!))).toBeGreaterThanOrEqual(0.95);
        }
      });
    }
  }
});

describe("what is left of a window past its shared part, while others' sends are counted", () => {
  const PERIOD = 6_000;
  const LIMIT = 250;
  const { assumedClients, scrambleRounds, sharedPart } = DEFAULT_THROTTLE_POLICY;
  const START = FAKE_EPOCH + 100;
  const NEXT = FAKE_EPOCH + PERIOD;
  const window = (remaining: number, resetAt: number) => [{ periodSeconds: PERIOD / 1000, limit: LIMIT, remaining, resetAt }];

  /**
   * A job whose probe's answer showed other jobs' sends in the window; from the next window on, it
   * and `others` jobs take their shares at the reset, then what is left, each sized by the same rule.
   */
  async function nextWindow(others: number) {
    const clock = new FakeClock(START);
    const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, clock);
    limiter.observe(await limiter.acquire(10, { unit: 1 }), window(LIMIT - 10 - 40, NEXT));
    await clock.sleep(NEXT - clock.now());
    const share = await limiter.acquire(100, { unit: 1 });
    expect(share.components).toBe(Math.floor(LIMIT / (assumedClients + 1)));
    const remaining = LIMIT - (others + 1) * share.components;
    limiter.observe(share, window(remaining, NEXT + PERIOD));
    return { clock, limiter, remaining };
  }

  it('is taken in turns: one request per scrambleRounds-th of the window, a sixteenth of what the latest answer left', async () => {
    const others = 3;
    const { clock, limiter, remaining: afterShares } = await nextWindow(others);
    let remaining = afterShares;
    const grants: { at: number; components: number; left: number }[] = [];
    for (let round = 0; round < 5; round++) {
      const grant = await limiter.acquire(100, { unit: 1 });
      grants.push({ at: clock.now() - NEXT, components: grant.components, left: remaining });
      remaining -= (others + 1) * grant.components;
      limiter.observe(grant, window(remaining, NEXT + PERIOD));
    }
    expect(grants[0]!.at).toBeGreaterThanOrEqual(PERIOD * sharedPart);
    const gaps = grants.slice(1).map((grant, i) => grant.at - grants[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(PERIOD / scrambleRounds);
    for (const grant of grants) expect(grant.components).toBe(Math.floor(grant.left / assumedClients));
  });

  it('goes a unit at a time down to as many units as there were clients in a round, and leaves those', async () => {
    const others = 2;
    const { clock, limiter, remaining: afterShares } = await nextWindow(others);
    let remaining = afterShares;
    const sent: number[] = [];
    for (;;) {
      const grant = await limiter.acquire(100, { unit: 1 });
      if (clock.now() >= NEXT + PERIOD) break;
      sent.push(grant.components);
      remaining -= (others + 1) * grant.components;
      limiter.observe(grant, window(remaining, NEXT + PERIOD));
    }
    // Three clients sent in each round: a unit while three or more are left.
    expect(sent.slice(-3)).toEqual([1, 1, 1]);
    expect(remaining).toBeGreaterThanOrEqual(0);
    expect(remaining).toBeLessThan(others + 1);
  });

  it('is not paced in a window the others have not sent in (they are done, or wait for a longer one)', async () => {
    const { clock, limiter, remaining: afterShares } = await nextWindow(0);
    let remaining = afterShares;
    const at: number[] = [];
    for (let round = 0; round < 5; round++) {
      const grant = await limiter.acquire(100, { unit: 1 });
      at.push(clock.now());
      remaining -= grant.components;
      limiter.observe(grant, window(remaining, NEXT + PERIOD));
    }
    expect(at[0]! - NEXT).toBeGreaterThanOrEqual(PERIOD * sharedPart);
    expect(at.at(-1)).toBe(at[0]);
  });
});

describe('a job alone, without a store', () => {
  it('takes the rest of a 60 s window once its start grace is over, not only past the window’s first tenth', async () => {
    const clock = new FakeClock(FAKE_EPOCH + 100);
    const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, clock);
    let remaining = 250;
    const answer = (reservation: Reservation) => {
      remaining -= reservation.components;
      limiter.observe(reservation, [{ periodSeconds: 60, limit: 250, remaining, resetAt: FAKE_EPOCH + 60_000 }]);
    };
    answer(await limiter.acquire(10, { unit: 1 }));
    for (;;) {
      const grant = await limiter.acquire(200, { unit: 1 });
      answer(grant);
      if (grant.components > 100) break;
    }
    // Its grace is a second; the window's first tenth, six.
    expect(clock.now() - FAKE_EPOCH).toBeLessThan(2_000);
  });
});
