import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/throttle/clock.js';
import { RateLimiter, type ThrottlePolicy } from '../../src/throttle/rate-limiter.js';
import { parseRateHeaders, retryAfterRateLimit, retryAtAfter429 } from '../../src/throttle/rate-headers.js';
import { ItemTooWideError, QuotaWaitError } from '../../src/errors/index.js';

/** A clock that only moves when someone sleeps: waits are measured, not endured. */
function fakeClock(start = 1_000_000): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const policy: ThrottlePolicy = {
  initialPerMinute: 250,
  firstRequestComponents: 10,
  marginFraction: 0,
  minMarginMs: 0,
  transitMs: 0,
  maxWaitMs: 15 * 60_000,
  assumedClients: 16,
  fairPart: 0.1,
  startGraceMs: 0,
  scrambleRounds: 40,
};

describe('RateLimiter', () => {
  it('lets the first request out alone, then paces by the initial rate until headers arrive', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter({ ...policy, initialPerMinute: 200 }, clock);
    const first = await limiter.acquire(100);
    limiter.observe(first, []);
    await limiter.acquire(100);
    expect(clock.slept).toEqual([]);
    await limiter.acquire(100);
    // 200 per minute: the third 100 waits for the first to leave the window.
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBe(60_000);
  });

  it('adopts the windows the service reports and honours every one of them', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter(policy, clock);
    const first = await limiter.acquire(10);
    limiter.observe(first, [
      { periodSeconds: 1, limit: 20, remaining: 10, resetAt: 1_000 },
      { periodSeconds: 60, limit: 30, remaining: 20, resetAt: 60_000 },
    ]);
    await limiter.acquire(10); // fills the 1 s window
    await limiter.acquire(10); // must wait for the 1 s window
    expect(clock.now()).toBeGreaterThanOrEqual(1_000);
    await limiter.acquire(10); // the 60 s window (30) is now spent: wait for it
    expect(clock.now()).toBeGreaterThanOrEqual(60_000);
    expect(limiter.describe()).toBe('20/1s, 30/60s');
  });

  it('trusts a lower remaining count from the service (an earlier run used the quota)', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter(policy, clock);
    const first = await limiter.acquire(5);
    limiter.observe(first, [{ periodSeconds: 60, limit: 250, remaining: 5, resetAt: 30_000 }]);
    await limiter.acquire(5);
    await limiter.acquire(5);
    expect(clock.now()).toBeGreaterThanOrEqual(30_000);
  });

  it('uses every component of a window when answers arrive out of order, and no more', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter(policy, clock);
    const window = (remaining: number) => [{ periodSeconds: 5, limit: 1000, remaining, resetAt: 5_000 }];
    limiter.observe(await limiter.acquire(10), window(990));
    const sent = [];
    for (let i = 0; i < 9; i++) sent.push(await limiter.acquire(100));
    // The service counts them as they arrive, the first one last; each answer says what it left then.
    const arrivals = [...sent.slice(1), sent[0]!];
    arrivals.forEach((reservation, i) => limiter.observe(reservation, window(990 - 100 * (i + 1))));
    await limiter.acquire(90);
    expect(clock.slept).toEqual([]);
    await limiter.acquire(1);
    expect(clock.now()).toBeGreaterThanOrEqual(5_000);
  });

  it('does not take a slow answer carrying an older count for what is left', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter(policy, clock);
    const window = (remaining: number) => [{ periodSeconds: 5, limit: 200, remaining, resetAt: 5_000 }];
    limiter.observe(await limiter.acquire(10), window(190));
    const first = await limiter.acquire(90);
    const second = await limiter.acquire(90);
    // Both arrive, the first before the second, but the second's answer comes back first.
    limiter.observe(second, window(10));
    limiter.observe(first, window(100));
    // 10 are left, not 100.
    await limiter.acquire(10);
    expect(clock.slept).toEqual([]);
    await limiter.acquire(1);
    expect(clock.now()).toBeGreaterThanOrEqual(5_000);
  });

  it('pauses every sender after a 429 until the reset', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter(policy, clock);
    limiter.observe(await limiter.acquire(1), []);
    limiter.pauseUntil(5_000);
    expect(limiter.waitingUntil).toBe(0);
    await limiter.acquire(1);
    expect(clock.now()).toBeGreaterThanOrEqual(5_000);
    expect(limiter.waitedMs).toBeGreaterThanOrEqual(5_000);
  });

  it('knows the largest request any window admits', async () => {
    const limiter = new RateLimiter(policy, fakeClock(0));
    // Before any answer: a small first request, whose headers describe the windows.
    expect(limiter.largestRequest).toBe(10);
    limiter.observe(await limiter.acquire(1), [{ periodSeconds: 60, limit: 250, remaining: 249, resetAt: 60_000 }]);
    expect(limiter.largestRequest).toBe(250);
    limiter.observe(await limiter.acquire(1), [
      { periodSeconds: 1, limit: 20, remaining: 19, resetAt: 1_000 },
      { periodSeconds: 60, limit: 250, remaining: 249, resetAt: 60_000 },
    ]);
    expect(limiter.largestRequest).toBe(20);
  });

  it('grants part of a request, in whole units, when only that much fits (250 a minute in batches of 100)', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter(policy, clock);
    const probe = await limiter.acquire(100, { unit: 1 });
    expect(probe.components).toBe(10);
    limiter.observe(probe, []);
    expect((await limiter.acquire(100, { unit: 1 })).components).toBe(100);
    expect((await limiter.acquire(100, { unit: 1 })).components).toBe(100);
    expect((await limiter.acquire(100, { unit: 4 })).components).toBe(40);
    expect(clock.slept).toEqual([]);
    // Nothing left: the next grant waits for room, then takes what fits.
    const later = await limiter.acquire(100, { unit: 1 });
    expect(clock.now()).toBeGreaterThanOrEqual(60_000);
    expect(later.components).toBe(100);
  });

  it('takes a refused request out of its log, so the retry does not wait for room it never used', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter({ ...policy, initialPerMinute: 100 }, clock);
    limiter.observe(await limiter.acquire(50), []);
    const refused = await limiter.acquire(50);
    limiter.observe(refused, []);
    limiter.refund(refused);
    await limiter.acquire(50);
    expect(clock.slept).toEqual([]);
  });

  it('grants in request order', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter({ ...policy, initialPerMinute: 10 }, clock);
    limiter.observe(await limiter.acquire(10), []);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => limiter.acquire(10).then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
  });

  it('serves the earliest rows first: a batch remainder is never overtaken by later rows', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter({ ...policy, initialPerMinute: 100 }, clock);
    const batch = limiter.grants(100, { unit: 1, priority: 1 })[Symbol.asyncIterator]();
    const probe = (await batch.next()).value!; // rows 1-10 go alone; rows 11-100 keep their place
    expect(probe.components).toBe(10);
    const order: string[] = [];
    const later = [201, 101].map((row) =>
      limiter.acquire(100, { unit: 1, priority: row }).then((r) => order.push(`${row}:${r.components}`)),
    );
    limiter.observe(probe, []);
    const rest = (await batch.next()).value!;
    order.unshift(`11:${rest.components}`);
    await Promise.all(later);
    expect(order).toEqual(['11:90', '101:100', '201:100']);
    expect((await batch.next()).done).toBe(true);
  });

  it("waits for a spent window's reset as the service states it, not for our sends to age out", async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter({ ...policy, initialPerMinute: 1000 }, clock);
    // The run starts 50 s into a fixed 60 s window that has 240 left.
    await clock.sleep(50_000);
    limiter.observe(await limiter.acquire(10), [{ periodSeconds: 60, limit: 250, remaining: 240, resetAt: 60_000 }]);
    expect((await limiter.acquire(240, { unit: 1 })).components).toBe(240);
    const next = await limiter.acquire(250, { unit: 1 });
    // At the reset (60 s) a whole window is there: a sliding log would have waited until 110 s.
    expect(clock.now()).toBe(60_000);
    expect(next.components).toBe(250);
    await limiter.acquire(1);
    expect(clock.now()).toBe(120_000);
  });

  it('counts a send made just before a reset in the next window only until its answer says it was counted before', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter({ ...policy, transitMs: 200 }, clock);
    const window = (remaining: number, resetAt: number) => [{ periodSeconds: 2, limit: 100, remaining, resetAt }];
    // A job starting 100 ms before a reset fills what is left of the window.
    await clock.sleep(1_900);
    limiter.observe(await limiter.acquire(10), window(90, 2_000));
    const rest = await limiter.acquire(90, { unit: 1 });
    expect(rest.components).toBe(90);
    // Sent 100 ms before the reset it might have arrived after it; the answer says it did not.
    limiter.observe(rest, window(0, 2_000));
    const next = await limiter.acquire(100, { unit: 1 });
    // Counted in both windows, the send would leave the next one empty (a wait until 4 s): it goes at the reset.
    expect(clock.now()).toBe(2_000);
    expect(next.components).toBe(100);
  });

  it('stops waiting at once when the run stops', async () => {
    const limiter = new RateLimiter({ ...policy, initialPerMinute: 10 }); // the real clock: a wait of a minute
    limiter.observe(await limiter.acquire(10), []);
    const stop = new AbortController();
    const waiting = limiter.acquire(10, { signal: stop.signal });
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    // An aborted signal refuses at once too.
    await expect(limiter.acquire(10, { signal: stop.signal })).rejects.toThrow('stopping');
  });

  it('refuses a wait longer than maxWaitMs instead of sleeping through it', async () => {
    const clock = fakeClock(0);
    const limiter = new RateLimiter({ ...policy, maxWaitMs: 60_000 }, clock);
    limiter.observe(await limiter.acquire(1), [{ periodSeconds: 86_400, limit: 1000, remaining: 0, resetAt: 86_400_000 }]);
    const refused = limiter.acquire(1);
    await expect(refused).rejects.toBeInstanceOf(QuotaWaitError);
    await expect(refused).rejects.toMatchObject({ resetAt: 86_400_000, exitCode: 5 });
    expect(clock.slept).toEqual([]);
  });

  it('refuses an item wider than the smallest window, which no wait could admit', async () => {
    const limiter = new RateLimiter(policy, fakeClock(0));
    limiter.observe(await limiter.acquire(1), [{ periodSeconds: 1, limit: 20, remaining: 19, resetAt: 1_000 }]);
    await expect(limiter.acquire(100, { unit: 25 })).rejects.toBeInstanceOf(ItemTooWideError);
  });
});

describe('rate headers', () => {
  const headers = {
    'x-ratelimit-period': '1,60',
    'x-ratelimit-limit': '20,250',
    'x-ratelimit-remaining': '0,100',
    'x-ratelimit-reset': '1700000001,1700000060',
  };

  it('parses one window per comma-separated value', () => {
    expect(parseRateHeaders(headers)).toEqual([
      { periodSeconds: 1, limit: 20, remaining: 0, resetAt: 1_700_000_001_000 },
      { periodSeconds: 60, limit: 250, remaining: 100, resetAt: 1_700_000_060_000 },
    ]);
  });

  it('ignores malformed headers rather than guessing', () => {
    expect(parseRateHeaders({ ...headers, 'x-ratelimit-limit': '20' })).toEqual([]);
    expect(parseRateHeaders({ ...headers, 'x-ratelimit-reset': 'soon,later' })).toEqual([]);
    expect(parseRateHeaders({})).toEqual([]);
  });

  it('after a 429 waits for the exhausted window, or the nearest reset when none is exhausted', () => {
    const now = 1_700_000_000_000;
    expect(retryAfterRateLimit(parseRateHeaders(headers), now)).toBe(1_700_000_001_000);
    const spurious = parseRateHeaders({ ...headers, 'x-ratelimit-remaining': '5,100' });
    expect(retryAfterRateLimit(spurious, now)).toBe(1_700_000_001_000);
    expect(retryAfterRateLimit([], now)).toBeUndefined();
  });

  it('honours Retry-After, in seconds or as a date, and never comes back before an exhausted window resets', () => {
    const now = 1_700_000_000_000;
    expect(retryAtAfter429({ 'retry-after': '3' }, now)).toBe(now + 3_000);
    expect(retryAtAfter429({ 'retry-after': new Date(now + 7_000).toUTCString() }, now)).toBe(now + 7_000);
    expect(retryAtAfter429({ ...headers, 'retry-after': '0' }, now)).toBe(1_700_000_001_000);
    expect(retryAtAfter429({}, now)).toBeUndefined();
  });
});
