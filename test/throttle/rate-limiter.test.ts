import { describe, expect, it } from 'vitest';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { strictService, type Limit } from '../helpers/strict-service.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/policy/policy.js';
import { RateLimiter, type Reservation } from '../../src/throttle/rate-limiter.js';
import { parseRateHeaders, retryAfterRateLimit, retryAtAfter429, type ReportedWindow } from '../../src/throttle/rate-headers.js';
import { startGraceMs } from '../../src/throttle/window-rules.js';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { ItemTooWideError, QuotaWaitError } from '../../src/errors/index.js';

/**
 * The limiter with its default policy (its margins, its transit allowance and its start grace), on
 * the fake clock: every time asserted is the exact virtual ms a grant was made, so a limiter that
 * waited too long fails as surely as one that sent too soon. Times are ms from the job's start.
 */

/** A job alone on an account whose service answers at once; `startAt` places its start in the windows. */
function job(limits: readonly Limit[], startAt = FAKE_EPOCH) {
  const clock = new FakeClock(startAt);
  const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, clock);
  const service = strictService(limits, clock);
  const at = () => clock.now() - startAt;
  /** The service counts a granted request (or refuses it: 429) and answers at once. */
  const answer = (reservation: Reservation): boolean => {
    const { ok, windows } = service.arrive(reservation.components);
    if (!ok) limiter.refund(reservation);
    limiter.observe(reservation, windows);
    return ok;
  };
  /** Asks for `components` in units of `unit`, sends what is granted, and says when and how much. */
  const take = async (components: number, unit = 1): Promise<string> => {
    const reservation = await limiter.acquire(components, { unit });
    const when = at();
    answer(reservation);
    return `${reservation.components}@${when}`;
  };
  return { clock, limiter, service, at, answer, take };
}

/**
 * A job past its start: its probe (1 component) answered, then, its start grace over, one component
 * more whose answer shows it alone. What it sends after that is paced by the windows alone.
 */
async function started(limits: readonly Limit[], startAt = FAKE_EPOCH) {
  const alone = job(limits, startAt);
  alone.answer(await alone.limiter.acquire(1));
  await alone.clock.sleep(
    startGraceMs(
      DEFAULT_THROTTLE_POLICY,
      limits.map((limit) => ({ periodMs: limit.periodSeconds * 1000 })),
    ),
  );
  alone.answer(await alone.limiter.acquire(1));
  return alone;
}

/** Lets every pending grant and answer run (the fake clock moves only when all of them wait). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('RateLimiter, with its default policy', () => {
  it('sends its first 10 components alone; a service that states no windows is then paced at --rate, 250 a minute', async () => {
    const { clock, limiter, at } = job([]);
    const probe = await limiter.acquire(300, { unit: 1 });
    expect(probe.components).toBe(DEFAULT_THROTTLE_POLICY.firstRequestComponents);
    let next: Reservation | undefined;
    void limiter.acquire(240, { unit: 1 }).then((reservation) => (next = reservation));
    await clock.sleep(1_000);
    expect(next).toBeUndefined();
    // Its answer states no windows: the rest of the assumed minute goes at once.
    limiter.observe(probe, []);
    await settle();
    expect(next?.components).toBe(240);
    limiter.observe(next!, []);
    // The minute is spent: the next goes when the probe leaves it, a minute and its margin (300 ms) after it went.
    await limiter.acquire(10, { unit: 1 });
    expect(at()).toBe(60_300);
  });

  it('a job alone takes its start share (1/17) for its first second, then, once an answer shows nobody else, the rest of the window', async () => {
    // 10 s into a minute at the self-serve plan: the start grace is a second.
    const { take } = job([{ limit: 250, periodSeconds: 60 }], FAKE_EPOCH + 10_000);
    const sent = [await take(250), await take(240), await take(236), await take(222), await take(250)];
    // 10 + 4 = 14 = 250/17 at once; at 1 s a slice (1/16 of what is left), whose answer shows it
    // alone; the rest at once; the next window at its reset (50 s) and its margin (300 ms).
    expect(sent).toEqual(['10@0', '4@0', '14@1000', '222@1000', '250@50300']);
  });

  it('takes what every window has left at once, and waits for each reset plus its margin (50 ms at a second, 300 ms at a minute)', async () => {
    const { limiter, take } = await started(
      [
        { limit: 20, periodSeconds: 1 },
        { limit: 30, periodSeconds: 60 },
      ],
      FAKE_EPOCH + 5_000,
    );
    expect(limiter.describe()).toBe('20/1s, 30/60s');
    // 2 components went at the start. The second is spent after 18 more, the minute after 10 more.
    expect([await take(100), await take(100), await take(100)]).toEqual(['18@100', '10@1050', '20@55300']);
  });

  it('uses every component of a window when answers arrive out of order, and no more', async () => {
    const { clock, limiter, at } = job([]);
    const window = (remaining: number) => [{ periodSeconds: 5, limit: 1000, remaining, resetAt: FAKE_EPOCH + 5_000 }];
    await clock.sleep(1_000);
    limiter.observe(await limiter.acquire(10), window(990));
    await clock.sleep(500);
    limiter.observe(await limiter.acquire(1), window(989));
    const sent = [];
    for (let i = 0; i < 9; i++) sent.push(await limiter.acquire(100));
    // The service counts them as they arrive, the first one last; each answer says what it left then.
    const arrivals = [...sent.slice(1), sent[0]!];
    arrivals.forEach((reservation, i) => limiter.observe(reservation, window(989 - 100 * (i + 1))));
    expect((await limiter.acquire(100, { unit: 1 })).components).toBe(89);
    expect(at()).toBe(1_500);
    await limiter.acquire(1);
    expect(at()).toBe(5_050);
  });

  it('does not take a slow answer carrying an older count for what is left', async () => {
    const { clock, limiter, at } = job([]);
    const window = (remaining: number) => [{ periodSeconds: 5, limit: 200, remaining, resetAt: FAKE_EPOCH + 5_000 }];
    await clock.sleep(1_000);
    limiter.observe(await limiter.acquire(10), window(190));
    await clock.sleep(500);
    limiter.observe(await limiter.acquire(10), window(180));
    const first = await limiter.acquire(80);
    const second = await limiter.acquire(90);
    // Both arrive, the first before the second, but the second's answer comes back first.
    limiter.observe(second, window(10));
    limiter.observe(first, window(100));
    // 10 are left, not 100.
    expect((await limiter.acquire(100, { unit: 1 })).components).toBe(10);
    expect(at()).toBe(1_500);
    await limiter.acquire(1);
    expect(at()).toBe(5_050);
  });

  it('sends nothing after a 429 until the time the retry policy said, and then at once', async () => {
    const { limiter, at, take } = await started([{ limit: 100, periodSeconds: 2 }]);
    limiter.pauseUntil(FAKE_EPOCH + 5_000);
    expect(await take(10)).toBe('10@5000');
    expect(limiter.waitedMs).toBe(5_000 - 200);
    expect(at()).toBe(5_000);
  });

  it('knows the largest request any window admits', async () => {
    const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, new FakeClock());
    // Before any answer: a small first request, whose headers describe the windows.
    expect(limiter.largestRequest).toBe(10);
    limiter.observe(await limiter.acquire(1), [{ periodSeconds: 60, limit: 250, remaining: 249, resetAt: FAKE_EPOCH + 60_000 }]);
    expect(limiter.largestRequest).toBe(250);
    limiter.observe(await limiter.acquire(1), [
      { periodSeconds: 1, limit: 20, remaining: 19, resetAt: FAKE_EPOCH + 1_000 },
      { periodSeconds: 60, limit: 250, remaining: 248, resetAt: FAKE_EPOCH + 60_000 },
    ]);
    expect(limiter.largestRequest).toBe(20);
  });

  it('grants part of a request, in whole units, when only that much fits (250 a minute in batches of 100)', async () => {
    const { take } = await started([{ limit: 250, periodSeconds: 60 }], FAKE_EPOCH + 10_000);
    // 2 went at the start; 248 are left: 100, 100, and 48 in units of 4; the next 100 at the reset and its margin.
    expect([await take(100), await take(100), await take(100, 4), await take(100)]).toEqual([
      '100@1000',
      '100@1000',
      '48@1000',
      '100@50300',
    ]);
  });

  it('takes a refused request out of its log, so the retry does not wait for room it never used', async () => {
    const { limiter, at } = job([]);
    limiter.observe(await limiter.acquire(10), []);
    const refused = await limiter.acquire(240);
    limiter.refund(refused);
    limiter.observe(refused, []);
    expect((await limiter.acquire(240)).components).toBe(240);
    expect(at()).toBe(0);
  });

  it('grants in request order', async () => {
    const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY, initialPerMinute: 10 }, new FakeClock());
    limiter.observe(await limiter.acquire(10), []);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => limiter.acquire(10).then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
  });

  it('serves the earliest rows first: a batch remainder is never overtaken by later rows', async () => {
    const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY, initialPerMinute: 100 }, new FakeClock());
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

  it("waits for a spent window's reset as the service states it, not for its own sends to age out", async () => {
    // 50 s into a fixed minute.
    const { take } = await started([{ limit: 250, periodSeconds: 60 }], FAKE_EPOCH + 50_000);
    // At the reset (10 s on) and its margin a whole window is there: a sliding log would wait until 60 s.
    expect([await take(248), await take(250), await take(1)]).toEqual(['248@1000', '250@10300', '1@70300']);
  });

  it('counts a send made just before a reset in the next window only until its answer says it was counted before', async () => {
    const { clock, take } = await started([{ limit: 100, periodSeconds: 2 }]);
    // The rest of the window goes 100 ms before its reset: it might arrive after it, and count there.
    await clock.sleep(1_700);
    expect(await take(98)).toBe('98@1900');
    // Its answer says it was counted before the reset: the next window is whole, at its reset and margin.
    expect(await take(100)).toBe('100@2050');
  });

  it('stops waiting at once when the run stops', async () => {
    const { clock, limiter } = await started([{ limit: 100, periodSeconds: 2 }]);
    limiter.observe(await limiter.acquire(98), [{ periodSeconds: 2, limit: 100, remaining: 0, resetAt: FAKE_EPOCH + 2_000 }]);
    const stop = new AbortController();
    const waiting = limiter.acquire(10, { signal: stop.signal });
    await settle();
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    expect(clock.now()).toBe(FAKE_EPOCH + 200);
    // An aborted signal refuses at once too.
    await expect(limiter.acquire(10, { signal: stop.signal })).rejects.toThrow('stopping');
  });

  it('refuses a wait longer than --max-wait (a quarter of an hour for a batch) instead of sleeping through it', async () => {
    const { clock, limiter } = job([]);
    const day: ReportedWindow = { periodSeconds: 86_400, limit: 1000, remaining: 0, resetAt: FAKE_EPOCH + 86_400_000 };
    limiter.observe(await limiter.acquire(1), [day]);
    const refused = limiter.acquire(1);
    await expect(refused).rejects.toBeInstanceOf(QuotaWaitError);
    await expect(refused).rejects.toMatchObject({ resetAt: FAKE_EPOCH + 86_400_000 });
    expect(exitCodeFor(await refused.catch((error: unknown) => error))).toBe(5);
    expect(clock.slept).toEqual([]);
  });

  it('does not start from remembered windows no pacing can keep (a limit of 0): its first request asks the service again', async () => {
    const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, new FakeClock());
    limiter.remember([{ periodSeconds: 60, limit: 0, remaining: 0, resetAt: FAKE_EPOCH + 60_000 }]);
    expect(limiter.stated).toBe(false);
    expect((await limiter.acquire(100, { unit: 1 })).components).toBe(10);
  });

  it('refuses an item wider than the smallest window, which no wait could admit', async () => {
    const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, new FakeClock());
    limiter.observe(await limiter.acquire(1), [{ periodSeconds: 1, limit: 20, remaining: 19, resetAt: FAKE_EPOCH + 1_000 }]);
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
