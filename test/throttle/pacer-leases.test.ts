import { describe, expect, it } from 'vitest';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';
import { strictService, type Limit } from '../helpers/strict-service.js';
import { memoryPacer } from '../../src/throttle/memory-pacer.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/policy/policy.js';
import { RateLimiter, type Reservation } from '../../src/throttle/rate-limiter.js';
import { emptySharedState, endLeaseIn, reportIn, type SharedPacer, type SharedState } from '../../src/throttle/shared-pacer.js';

const { leaseRequests: LEASE, leaseMs: LEASE_MS } = DEFAULT_THROTTLE_POLICY;

/** A memory pacer (the rules every store applies) that counts what it is asked. */
function countedPacer(state: SharedState, owner: string, clock: FakeClock) {
  const pacer = memoryPacer(state, owner, clock);
  const asked = { reserve: 0, report: 0, refund: 0, ended: [] as number[] };
  const counted: SharedPacer = {
    ...pacer,
    reserve: (request) => {
      asked.reserve++;
      if (request.ends) asked.ended.push(request.ends.unused);
      return pacer.reserve(request);
    },
    report: (reservation, reported) => (asked.report++, pacer.report(reservation, reported)),
    refund: (reservation) => (asked.refund++, pacer.refund(reservation)),
    endLease: (reservation, unused) => (asked.ended.push(unused), pacer.endLease(reservation, unused)),
  };
  return { pacer: counted, asked };
}

/** A client of one account whose store's pacer is `state`, making one-item calls one after another. */
function oneItemClient(limits: readonly Limit[], state = emptySharedState(), clock = new FakeClock()) {
  const limiter = new RateLimiter(DEFAULT_THROTTLE_POLICY, clock);
  const { pacer, asked } = countedPacer(state, 'client', clock);
  limiter.shareWith(pacer);
  const service = strictService(limits, clock);
  const answer = (reservation: Reservation) => {
    const { ok, windows } = service.arrive(reservation.components);
    if (!ok) limiter.refund(reservation);
    limiter.observe(reservation, windows);
    return ok;
  };
  /** `calls` calls, each granted, sent and answered `spacingMs` after the one before. */
  const calls = async (count: number, spacingMs = 5) => {
    for (let i = 0; i < count; i++) {
      const ok = answer(await limiter.acquire(1, { unit: 1 }));
      expect(ok).toBe(true);
      await clock.sleep(spacingMs);
    }
  };
  // Pacer calls are told in order and not awaited: one turn of the event loop lets them land.
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return { clock, limiter, state, asked, calls, answer, settled };
}

/** Windows a hundred times wider than a lease, as an enterprise plan's or the sandbox's without a limit. */
const WIDE: Limit[] = [{ periodSeconds: 60, limit: 100_000 }];

describe('a limiter leasing from the shared pacer where the windows are wide', () => {
  it('asks the store once for each lease of one-item calls (ThrottlePolicy.leaseRequests), and reports an answer only when it says something new', async () => {
    const client = oneItemClient(WIDE);
    await client.calls(2 * LEASE + 1);
    await client.settled();
    // The first (a probe of one, before any window is known), then one lease each LEASE calls.
    expect(client.asked.reserve).toBe(1 + 2);
    expect(client.asked.report).toBeLessThanOrEqual(1 + 2 + 1);
    // Each lease ended with nothing left, told with the next reservation.
    expect(client.asked.ended).toEqual([0]);
  });

  it('asks before every call at the self-serve plan, 250 a minute: no lease holds back what another job could use', async () => {
    const client = oneItemClient([{ periodSeconds: 60, limit: 250 }]);
    await client.calls(20, 200);
    await client.settled();
    expect(client.asked.reserve).toBe(20);
  });

  it('gives back what a lease left once it has run out, and the window has all its room again', async () => {
    const client = oneItemClient(WIDE);
    await client.calls(3);
    await client.clock.sleep(LEASE_MS);
    await client.calls(1);
    await client.settled();
    // The probe, then a lease of which 2 went: the rest given back when the next call found it run out,
    // with the next lease's reservation.
    expect(client.asked.ended).toEqual([LEASE - 2]);
    expect(client.asked.reserve).toBe(3);
    const reserved = client.state.reservations.reduce((sum, entry) => sum + entry.components, 0);
    expect(reserved).toBe(1 + 2 + LEASE);
  });

  it('gives back the whole rest of a lease when one of its requests is refused (429)', async () => {
    const clock = new FakeClock();
    const client = oneItemClient(WIDE, emptySharedState(), clock);
    await client.calls(2);
    const refused = await client.limiter.acquire(1, { unit: 1 });
    client.limiter.refund(refused);
    await client.settled();
    // The lease: 1 sent, 1 refused, the rest never used.
    expect(client.asked.ended).toEqual([1 + LEASE - 2]);
    expect(client.asked.refund).toBe(0);
  });
});

describe('the end of a lease', () => {
  const window = { periodSeconds: 60, limit: 100_000, remaining: 99_000, resetAt: FAKE_EPOCH + 60_000 };

  it('counts only what the lease used, and drops one that used nothing', () => {
    const state = emptySharedState();
    state.reservations.push(
      { id: 1, owner: 'a', at: FAKE_EPOCH, components: 8, lease: true },
      { id: 2, owner: 'a', at: FAKE_EPOCH, components: 3, lease: true },
    );
    endLeaseIn(state, 1, 5);
    endLeaseIn(state, 2, 3);
    endLeaseIn(state, 9, 1);
    expect(state.reservations).toEqual([{ id: 1, owner: 'a', at: FAKE_EPOCH, components: 3 }]);
  });

  it("keeps a lease apart from its owner's answered reservations until it ends, then joins them", () => {
    const state = emptySharedState();
    state.reservations.push(
      { id: 1, owner: 'a', at: FAKE_EPOCH, components: 1 },
      { id: 2, owner: 'a', at: FAKE_EPOCH + 10, components: 8, lease: true },
    );
    reportIn(state, 1, [window], FAKE_EPOCH + 20);
    reportIn(state, 2, [window], FAKE_EPOCH + 30);
    expect(state.reservations.map((entry) => entry.components)).toEqual([1, 8]);
    endLeaseIn(state, 2, 6);
    expect(state.reservations.map((entry) => entry.components)).toEqual([3]);
  });
});
