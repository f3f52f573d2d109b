import { describe, expect, it } from 'vitest';
import { retryAtAfter429 } from '../../src/throttle/rate-headers.js';
import { correctionFor, narrowOffset, offsetProvenBy, ServiceClock } from '../../src/throttle/service-clock.js';

/** A moment on this machine's clock, whole seconds from 2030-01-01T00:00:00Z. */
const T0 = Date.UTC(2030, 0, 1);

/** The Date header a service whose clock reads `serviceTime` writes (whole seconds). */
const dateHeader = (serviceTime: number) => ({ date: new Date(serviceTime).toUTCString() });

/** X-RateLimit-* headers for one window of `periodSeconds` resetting at `resetAt` (ms, the service's clock). */
const windowHeaders = (periodSeconds: number, resetAt: number, remaining = 10) => ({
  'x-ratelimit-period': String(periodSeconds),
  'x-ratelimit-limit': '20',
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(resetAt / 1000),
});

describe('what one answer proves of the offset (service time − local time)', () => {
  it('from Date: the service answered in [Date, Date + 1 s), here between sending and receiving', () => {
    // Sent at T0 + 300, received at T0 + 400; the service's clock read T0 + 5 s and some ms.
    expect(offsetProvenBy({ headers: dateHeader(T0 + 5_250), sentAt: T0 + 300, receivedAt: T0 + 400 })).toEqual({ lo: 4_600, hi: 5_700 });
  });

  it('from a window: the service answered in [reset − period, reset)', () => {
    expect(offsetProvenBy({ headers: windowHeaders(1, T0 + 6_000), sentAt: T0 + 300, receivedAt: T0 + 400 })).toEqual({
      lo: 4_600,
      hi: 5_700,
    });
    // A 60-s window says less; with the Date, what both say.
    const headers = { ...windowHeaders(60, T0 + 60_000), ...dateHeader(T0 + 5_250) };
    expect(offsetProvenBy({ headers: windowHeaders(60, T0 + 60_000), sentAt: T0 + 300, receivedAt: T0 + 400 })).toEqual({
      lo: -400,
      hi: 59_700,
    });
    expect(offsetProvenBy({ headers, sentAt: T0 + 300, receivedAt: T0 + 400 })).toEqual({ lo: 4_600, hi: 5_700 });
  });

  it('nothing from an answer that states no time, or contradicts itself', () => {
    expect(offsetProvenBy({ headers: {}, sentAt: T0, receivedAt: T0 + 100 })).toBeUndefined();
    expect(offsetProvenBy({ headers: { date: 'yesterday' }, sentAt: T0, receivedAt: T0 + 100 })).toBeUndefined();
    // Its Date says T0 + 5 s, its 1-s window that the second before T0 + 9 s is under way.
    const headers = { ...dateHeader(T0 + 5_000), ...windowHeaders(1, T0 + 9_000) };
    expect(offsetProvenBy({ headers, sentAt: T0, receivedAt: T0 + 100 })).toBeUndefined();
  });
});

describe('the offset over several answers', () => {
  it('keeps what every answer proves: answers at other moments of the second narrow it', () => {
    const first = offsetProvenBy({ headers: dateHeader(T0 + 5_300), sentAt: T0 + 300, receivedAt: T0 + 300 });
    // Received 800 ms later by our clock, the service's Date has turned: it is at least T0 + 6 s there.
    const second = offsetProvenBy({ headers: dateHeader(T0 + 6_000), sentAt: T0 + 1_000, receivedAt: T0 + 1_100 });
    expect(first).toEqual({ lo: 4_700, hi: 5_700 });
    expect(second).toEqual({ lo: 4_900, hi: 6_000 });
    expect(narrowOffset(first, second)).toEqual({ lo: 4_900, hi: 5_700 });
    expect(narrowOffset(undefined, second)).toEqual(second);
    expect(narrowOffset(first, undefined)).toEqual(first);
  });

  it('starts again from the latest answer when it contradicts the others (a clock was set)', () => {
    const before = { lo: 4_600, hi: 5_700 };
    const afterNtp = offsetProvenBy({ headers: dateHeader(T0 + 2_000), sentAt: T0 + 1_900, receivedAt: T0 + 2_100 });
    expect(afterNtp).toEqual({ lo: -100, hi: 1_100 });
    expect(narrowOffset(before, afterNtp)).toEqual(afterNtp);
  });
});

describe('the correction', () => {
  it('is none while the offset may be 0, and only what is proven otherwise, on the side that is never early', () => {
    expect(correctionFor(undefined)).toBe(0);
    expect(correctionFor({ lo: -300, hi: 700 })).toBe(0);
    expect(correctionFor({ lo: 0, hi: 700 })).toBe(0);
    // Ahead by 4.6 to 5.7 s: its reset comes here 4.6 s before our clock reads it, or sooner.
    expect(correctionFor({ lo: 4_600, hi: 5_700 })).toBe(4_600);
    // Behind by 4.3 to 5.3 s: its reset has surely come here 5.3 s after our clock reads it.
    expect(correctionFor({ lo: -5_300, hi: -4_300 })).toBe(-5_300);
  });

  it('turns the times a service 5 s ahead states into ours: window resets, and a 429 Retry-After date but not seconds', () => {
    const serviceClock = new ServiceClock();
    const sentAt = T0 + 300;
    const receivedAt = T0 + 300;
    const reset = T0 + 6_000; // its clock: T0 + 5.3 s
    const headers = { ...dateHeader(T0 + 5_300), ...windowHeaders(1, reset, 0) };
    serviceClock.observe({ headers, sentAt, receivedAt });
    expect(serviceClock.offset).toEqual({ lo: 4_700, hi: 5_700 });
    expect(serviceClock.toLocal(reset)).toBe(T0 + 1_300);
    expect(serviceClock.localWindows([{ periodSeconds: 1, limit: 20, remaining: 0, resetAt: reset }])).toEqual([
      { periodSeconds: 1, limit: 20, remaining: 0, resetAt: T0 + 1_300 },
    ]);
    expect(retryAtAfter429(headers, receivedAt, serviceClock.toLocal)).toBe(T0 + 1_300);
    const retryAt = dateHeader(T0 + 15_000).date;
    expect(retryAtAfter429({ 'retry-after': retryAt }, receivedAt, serviceClock.toLocal)).toBe(T0 + 10_300);
    expect(retryAtAfter429({ 'retry-after': '7' }, receivedAt, serviceClock.toLocal)).toBe(receivedAt + 7_000);
  });
});
