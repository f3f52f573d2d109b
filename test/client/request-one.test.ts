import { describe, expect, it } from 'vitest';
import { requestOne } from '../../src/client/request-one.js';
import { DEFAULT_RETRY_POLICY } from '../../src/client/retry-policy.js';
import type { RawResponse, Service } from '../../src/client/service-client.js';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';

/**
 * A one-off refused (429) by a service whose clock is `offsetMs` ahead of ours (behind when
 * negative): its window of 60 s resets at the next whole minute of its clock, as its headers say.
 */
function refusingOnce(clock: FakeClock, offsetMs: number): Service & { sentAt: number[] } {
  const sentAt: number[] = [];
  return {
    sentAt,
    send(): Promise<RawResponse> {
      sentAt.push(clock.now());
      const serviceNow = clock.now() + offsetMs;
      const reset = Math.ceil(serviceNow / 60_000) * 60_000;
      const refused = sentAt.length === 1;
      return Promise.resolve({
        status: refused ? 429 : 200,
        headers: {
          date: new Date(serviceNow).toUTCString(),
          'x-ratelimit-period': '60',
          'x-ratelimit-limit': '250',
          'x-ratelimit-remaining': refused ? '0' : '249',
          'x-ratelimit-reset': String(reset / 1000),
        },
        body: refused ? '{"message":"rate limit exceeded"}' : '[{"property/value":{"api_code":0}}]',
        elapsedMs: 0,
        redact: (text) => text,
      });
    },
  };
}

describe('a one-off refused by a service whose clock differs from ours', () => {
  for (const [name, offsetMs] of [
    ['5 s ahead', 5_000],
    ['5 s behind', -5_000],
  ] as const) {
    it(`waits for the reset as it comes on this machine when the service is ${name}`, async () => {
      // 30 s into a minute here: the service's minute ends in 25 s (ahead) or 35 s (behind).
      const clock = new FakeClock(FAKE_EPOCH + 30_000);
      const service = refusingOnce(clock, offsetMs);
      await requestOne(service, { method: 'GET', path: 'v2/property/value' }, { policy: DEFAULT_RETRY_POLICY, clock });
      const resetHere = FAKE_EPOCH + 60_000 - offsetMs;
      expect(service.sentAt).toHaveLength(2);
      // Not before the reset (refused again), nor 5 s after it; the retry policy's margin and jitter only.
      expect(service.sentAt[1]).toBeGreaterThanOrEqual(resetHere);
      expect(service.sentAt[1]).toBeLessThan(resetHere + 1_000);
    });
  }
});
