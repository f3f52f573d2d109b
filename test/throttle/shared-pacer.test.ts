import { describe, expect, it } from 'vitest';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { jain } from '../helpers/one-account.js';
import { strictService, type Limit } from '../helpers/strict-service.js';
import { memoryPacer } from '../../src/throttle/memory-pacer.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/policy/policy.js';
import { RateLimiter } from '../../src/throttle/rate-limiter.js';
import {
  emptySharedState,
  refundIn,
  reserveIn,
  reportIn,
  type ShareGrant,
  type SharedPacer,
  type ShareWindow,
} from '../../src/throttle/shared-pacer.js';
import { StoreError } from '../../src/errors/index.js';

/** One job: `components` sent through `limiter` by `concurrency` senders, each answer after `latencyMs`. */
async function job(
  limiter: RateLimiter,
  service: ReturnType<typeof strictService>,
  clock: FakeClock,
  components: number,
  concurrency: number,
) {
  const started = clock.now();
  let next = 0;
  let done = 0;
  const sender = async () => {
    while (next < components) {
      const size = Math.min(100, components - next);
      const row = next;
      next += size;
      for await (const reservation of limiter.grants(size, { unit: 1, priority: row })) {
        const answer = service.arrive(reservation.components);
        await clock.sleep(20);
        limiter.observe(reservation, answer.windows);
        if (!answer.ok) throw new Error('429');
        done += reservation.components;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
  return { components: done, seconds: (clock.now() - started) / 1000 };
}

/** Pure rules tested one at a time: no start grace unless a test is about it. */
const NO_GRACE = { ...DEFAULT_THROTTLE_POLICY, startGraceMs: 0 };
const { recheckMs: RECHECK_MS } = DEFAULT_THROTTLE_POLICY;

/** 2,000 components together at the tightest rate, from the first window (most of it left) on, each job at about the same pace. */
function expectFilledFairly(results: readonly { components: number; seconds: number }[], limits: readonly Limit[]) {
  const rate = Math.min(...limits.map((l) => l.limit / l.periodSeconds));
  const span = Math.max(...results.map((r) => r.seconds));
  expect(span).toBeLessThanOrEqual(2_000 / rate + Math.max(...limits.map((l) => l.periodSeconds)));
  expect(jain(results.map((r) => r.components / r.seconds))).toBeGreaterThanOrEqual(0.95);
}

describe('several limiters sharing one pacer', () => {
  for (const limits of [
    [{ limit: 250, periodSeconds: 6 }],
    [
      { limit: 50, periodSeconds: 1 },
      { limit: 250, periodSeconds: 10 },
    ],
  ]) {
    const name = limits.map((l) => `${l.limit}/${l.periodSeconds}`).join('+');
    it(`fill each window together, never oversubscribe it, and share it fairly (${name})`, async () => {
      const clock = new FakeClock(FAKE_EPOCH + 10);
      const service = strictService(limits, clock);
      const state = emptySharedState();
      const jobs = ['a', 'b', 'c', 'd'].map((owner) => {
        const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY }, clock);
        // They know the windows (an earlier run's, from the store): no probe.
        limiter.remember(service.report());
        limiter.shareWith(memoryPacer(state, owner, clock));
        return limiter;
      });
      const results = await Promise.all(jobs.map((limiter) => job(limiter, service, clock, 500, 4)));
      expect(service.refused).toBe(0);
      expectFilledFairly(results, limits);
    });

    it(`start together with no window known: one probe, then not a single 429 and fair shares (8 jobs, ${name})`, async () => {
      const clock = new FakeClock(FAKE_EPOCH + 10);
      const service = strictService(limits, clock);
      const state = emptySharedState();
      const jobs = Array.from({ length: 8 }, (_, i) => {
        const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY }, clock);
        limiter.shareWith(memoryPacer(state, `job${i}`, clock));
        return limiter;
      });
      const results = await Promise.all(jobs.map((limiter) => job(limiter, service, clock, 250, 4)));
      expect(service.refused).toBe(0);
      expectFilledFairly(results, limits);
    });
  }

  it('shares the first window among jobs that start a few hundred ms apart (a crontab starting four at once)', async () => {
    const limits = [{ limit: 250, periodSeconds: 6 }];
    const started = FAKE_EPOCH + 10;
    const clock = new FakeClock(started);
    const service = strictService(limits, clock);
    const state = emptySharedState();
    // Each one's whole input fits one window: a job that took the first window alone would be done before the others began.
    const results = await Promise.all(
      [0, 150, 300, 450].map(async (delay, i) => {
        await clock.sleep(delay);
        const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY }, clock);
        limiter.shareWith(memoryPacer(state, `job${i}`, clock));
        const { components } = await job(limiter, service, clock, 250, 4);
        return components / ((clock.now() - started) / 1000);
      }),
    );
    expect(service.refused).toBe(0);
    expect(jain(results)).toBeGreaterThanOrEqual(0.95);
  });

  it('grants each process its fair share of a window while others ask, and frees what one does not claim', () => {
    const state = emptySharedState();
    const windows: ShareWindow[] = [{ periodMs: 6_000, limit: 250, resetAt: FAKE_EPOCH + 6_000 }];
    const now = FAKE_EPOCH + 100;
    const request = (wanted: number, demand: number) => ({ wanted, demand, unit: 1, windows, policy: NO_GRACE });
    // b has 300 components waiting: a gets half the window, however much it asks for.
    expect(reserveIn(state, 'b', request(1, 300), now)).toMatchObject({ components: 1 });
    expect(reserveIn(state, 'a', request(250, 250), now)).toMatchObject({ components: 125 });
    // Held back by b's share alone: a asks again soon, not at the reset.
    expect(reserveIn(state, 'a', request(10, 10), now)).toEqual({ components: 0, retryAt: now + RECHECK_MS });
    // b now wants 100 in all: the rest of its share goes to a.
    expect(reserveIn(state, 'b', request(100, 100), now)).toMatchObject({ components: 100 });
    expect(reserveIn(state, 'a', request(100, 100), now)).toMatchObject({ components: 24 });
    expect(reserveIn(state, 'b', request(10, 10), now)).toEqual({ components: 0, retryAt: FAKE_EPOCH + 6_050 });
  });

  it('holds a process that has just joined to a small share, so that jobs started together each get one', () => {
    const state = emptySharedState();
    const windows: ShareWindow[] = [{ periodMs: 6_000, limit: 250, resetAt: FAKE_EPOCH + 6_000 }];
    const policy = { ...DEFAULT_THROTTLE_POLICY, startGraceMs: 600 };
    const request = (wanted: number) => ({ wanted, demand: wanted, unit: 1, windows, policy });
    // Alone, but only just started: 250 / 17, then the rest once its grace is over.
    expect(reserveIn(state, 'a', request(250), FAKE_EPOCH + 100)).toMatchObject({ components: 14 });
    expect(reserveIn(state, 'a', request(236), FAKE_EPOCH + 300)).toEqual({ components: 0, retryAt: FAKE_EPOCH + 300 + RECHECK_MS });
    // b joins 300 ms later: its own grace share, and a cannot take it away.
    expect(reserveIn(state, 'b', request(250), FAKE_EPOCH + 400)).toMatchObject({ components: 14 });
    expect(reserveIn(state, 'a', request(236), FAKE_EPOCH + 700)).toMatchObject({ components: 111 });
  });

  it('lets one process probe while no window is known, and the others wait for its answer', () => {
    const state = emptySharedState();
    const now = FAKE_EPOCH + 100;
    // Before any answer a limiter knows no reset: nothing it says is shared.
    const unknown: ShareWindow[] = [{ periodMs: 60_000, limit: 250, resetAt: undefined }];
    const request = (wanted: number, demand = wanted) => ({
      wanted,
      demand,
      unit: 1,
      windows: unknown,
      policy: NO_GRACE,
    });
    const probe = reserveIn(state, 'a', request(10, 100), now);
    expect(probe).toMatchObject({ components: 10 });
    expect(reserveIn(state, 'b', request(10), now)).toEqual({ components: 0, retryAt: now + RECHECK_MS });
    reportIn(
      state,
      'id' in probe ? probe.id : undefined,
      [{ periodSeconds: 1, limit: 50, remaining: 40, resetAt: FAKE_EPOCH + 1_000 }],
      now,
    );
    // The answer stated the window: b's first request is paced in it, and a (90 more waiting) keeps its share.
    expect(reserveIn(state, 'b', request(50), now)).toMatchObject({ components: 25 });
  });

  it('keeps no answered reservation while no window is stated (a service stating no limit), and every one in a stated window', () => {
    const state = emptySharedState();
    const now = FAKE_EPOCH + 100;
    const unknown: ShareWindow[] = [{ periodMs: 60_000, limit: 250, resetAt: undefined }];
    const reserve = (owner: string) =>
      reserveIn(state, owner, { wanted: 10, demand: 10, unit: 1, windows: unknown, policy: NO_GRACE }, now);
    const idOf = (grant: ShareGrant) => ('id' in grant ? grant.id : 0);
    const probe = idOf(reserve('a'));
    reportIn(state, probe, [], now);
    const [first, second] = [idOf(reserve('a')), idOf(reserve('b'))];
    reportIn(state, first, [], now);
    // The one in flight stays: it counts once a window is stated.
    expect(state.reservations.map((entry) => entry.id)).toEqual([second]);
    reportIn(state, second, [{ periodSeconds: 6, limit: 250, remaining: 230, resetAt: FAKE_EPOCH + 6_000 }], now);
    expect(idOf(reserve('a'))).toBeGreaterThan(0);
    reportIn(state, state.nextId, [{ periodSeconds: 6, limit: 250, remaining: 220, resetAt: FAKE_EPOCH + 6_000 }], now);
    expect(state.reservations).toHaveLength(2);
  });

  it("keeps an owner's answers counted in the same windows as one entry: the state stays small, the room the same", () => {
    const state = emptySharedState();
    const now = FAKE_EPOCH + 100;
    const windows: ShareWindow[] = [{ periodMs: 10_000, limit: 1_000, resetAt: FAKE_EPOCH + 10_000 }];
    const reserve = (owner: string, wanted: number) =>
      reserveIn(state, owner, { wanted, demand: wanted, unit: 1, windows, policy: NO_GRACE }, now);
    const idOf = (grant: ShareGrant) => ('id' in grant ? grant.id : 0);
    // 700 one-item requests of one process, each answered in the window, and one still in flight.
    for (let i = 1; i <= 700; i++) {
      reportIn(
        state,
        idOf(reserve('a', 1)),
        [{ periodSeconds: 10, limit: 1_000, remaining: 1_000 - i, resetAt: FAKE_EPOCH + 10_000 }],
        now,
      );
    }
    const inFlight = idOf(reserve('a', 1));
    expect(state.reservations.map((entry) => entry.components)).toEqual([700, 1]);
    expect(state.reservations[1]!.id).toBe(inFlight);
    // The window holds what it held: 701 used, 299 left, however much is asked.
    expect(reserve('a', 400)).toMatchObject({ components: 299 });
  });

  it('lets the next process probe when the probe was refused', () => {
    const state = emptySharedState();
    const now = FAKE_EPOCH + 100;
    const unknown: ShareWindow[] = [{ periodMs: 60_000, limit: 250, resetAt: undefined }];
    const request = (wanted: number) => ({ wanted, demand: wanted, unit: 1, windows: unknown, policy: NO_GRACE });
    const probe = reserveIn(state, 'a', request(10), now);
    refundIn(state, 'id' in probe ? probe.id : 0);
    expect(reserveIn(state, 'b', request(10), now)).toMatchObject({ components: 10 });
  });

  it('does not take a slow answer carrying an older count for what is left (another machine used 300)', () => {
    const state = emptySharedState();
    const windows: ShareWindow[] = [{ periodMs: 5_000, limit: 1000, resetAt: FAKE_EPOCH + 5_000 }];
    const now = FAKE_EPOCH + 100;
    const reserve = (wanted: number) => reserveIn(state, 'a', { wanted, demand: wanted, unit: 1, windows, policy: NO_GRACE }, now);
    const [first, second] = [reserve(100), reserve(100)].map((grant) => ('id' in grant ? grant.id : 0));
    const window = (remaining: number) => [{ periodSeconds: 5, limit: 1000, remaining, resetAt: FAKE_EPOCH + 5_000 }];
    // The second arrived first (the service had counted 400), the first after it (500); the first's answer comes back first.
    reportIn(state, first, window(500), now);
    reportIn(state, second, window(600), now);
    expect(reserve(1000)).toMatchObject({ components: 500 });
  });

  it('counts a reservation made just before a reset in the next window only until its answer says it was counted before', () => {
    const state = emptySharedState();
    const resetAt = FAKE_EPOCH + 6_000;
    const windows = (reset: number): ShareWindow[] => [{ periodMs: 6_000, limit: 250, resetAt: reset }];
    const reserve = (wanted: number, now: number, reset: number) =>
      reserveIn(state, 'a', { wanted, demand: wanted, unit: 1, windows: windows(reset), policy: NO_GRACE }, now);
    // The window's last 200 components go 100 ms before its reset; the answer says they were counted in it.
    const last = reserve(200, resetAt - 100, resetAt);
    expect(last).toMatchObject({ components: 200 });
    reportIn(state, 'id' in last ? last.id : undefined, [{ periodSeconds: 6, limit: 250, remaining: 0, resetAt }], resetAt - 50);
    // Counted in both windows, they left the next one 50.
    expect(reserve(250, resetAt + 50, resetAt + 6_000)).toMatchObject({ components: 250 });
  });

  it('asks again soon, not at the next window, when only requests in flight may fill the window', () => {
    const state = emptySharedState();
    const resetAt = FAKE_EPOCH + 6_000;
    const windows: ShareWindow[] = [{ periodMs: 6_000, limit: 250, resetAt }];
    const now = FAKE_EPOCH + 100;
    const reserve = (owner: string, wanted: number) =>
      reserveIn(state, owner, { wanted, demand: wanted, unit: 1, windows, policy: NO_GRACE }, now);
    const idOf = (grant: ReturnType<typeof reserve>) => ('id' in grant ? grant.id : undefined);
    const a = reserve('a', 29);
    const b = reserve('b', 192);
    // b's answer: the service has counted 221, a's 29 among them, though a's answer is still on its way.
    reportIn(state, idOf(b), [{ periodSeconds: 6, limit: 250, remaining: 29, resetAt }], now);
    expect(reserve('c', 10)).toEqual({ components: 0, retryAt: now + RECHECK_MS });
    reportIn(state, idOf(a), [{ periodSeconds: 6, limit: 250, remaining: 29, resetAt }], now);
    expect(reserve('c', 10)).toMatchObject({ components: 10 });
  });

  it("trusts the service's count when it saw more than the reservations here (another machine)", () => {
    const state = emptySharedState();
    const windows: ShareWindow[] = [{ periodMs: 6_000, limit: 250, resetAt: FAKE_EPOCH + 6_000 }];
    const now = FAKE_EPOCH + 100;
    const first = reserveIn(state, 'a', { wanted: 50, demand: 50, unit: 1, windows, policy: NO_GRACE }, now);
    expect(first).toMatchObject({ components: 50 });
    reportIn(
      state,
      'id' in first ? first.id : undefined,
      [{ periodSeconds: 6, limit: 250, remaining: 100, resetAt: FAKE_EPOCH + 6_000 }],
      now,
    );
    expect(reserveIn(state, 'a', { wanted: 250, demand: 250, unit: 1, windows, policy: NO_GRACE }, now)).toMatchObject({
      components: 100,
    });
  });
});

describe('a limiter asking a shared pacer that answers later (a store over the network)', () => {
  /** A pacer whose reservations are answered when the test says, and that notes what it is told. */
  function slowPacer() {
    const pending: ((grant: ShareGrant) => void)[] = [];
    const refunded: number[] = [];
    let failure: Error | undefined;
    const pacer: SharedPacer = {
      join: () => Promise.resolve(),
      reserve: () => new Promise((resolve) => pending.push(resolve)),
      report: () => (failure === undefined ? Promise.resolve() : Promise.reject(failure)),
      refund: (id) => {
        refunded.push(id);
        return Promise.resolve();
      },
      endLease: () => Promise.resolve(),
      leave: () => Promise.resolve(),
    };
    return { pacer, pending, refunded, fail: (error: Error) => (failure = error) };
  }

  const flush = () => new Promise((resolve) => setImmediate(resolve));

  it('stops granting once a call to it fails: every request waiting or to come fails with its error', async () => {
    const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, new FakeClock());
    const store = slowPacer();
    limiter.shareWith(store.pacer);
    const first = limiter.acquire(10);
    await flush();
    store.pending.shift()!({ components: 10, id: 1 });
    const failure = new StoreError('the store at /tmp/p.db cannot be written: disk full; free space, or run with --no-store');
    store.fail(failure);
    limiter.observe(await first, []);
    await expect(limiter.acquire(10)).rejects.toBe(failure);
    await expect(limiter.acquire(10)).rejects.toBe(failure);
  });

  it('gives back what it reserved for a request that stopped waiting while the pacer was asked', async () => {
    const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, new FakeClock());
    const store = slowPacer();
    limiter.shareWith(store.pacer);
    const stop = new AbortController();
    const waiting = limiter.acquire(10, { signal: stop.signal });
    await flush();
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    store.pending.shift()!({ components: 10, id: 7 });
    await flush();
    expect(store.refunded).toEqual([7]);
  });
});
