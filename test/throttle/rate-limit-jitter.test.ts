import { describe, expect, it } from 'vitest';
import { decideRetry, NO_ATTEMPTS, rateLimitJitter } from '../../src/client/retry-policy.js';
import { DEFAULT_RETRY_POLICY } from '../../src/policy/policy.js';
import { RateLimitedError } from '../../src/errors/index.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/policy/policy.js';

/**
 * After a 429, jobs that share no store (other machines) would all come back at the reset plus the
 * same margin and collide again: each adds its own random delay.
 */
describe('jitter after a 429', () => {
  const now = 1_000_000;
  const refused = new RateLimitedError(undefined, now + 6_000);

  it('comes back after the reset and margin, plus a random part of at most rateLimitJitterMs', () => {
    const at = (random: number) => decideRetry(refused, NO_ATTEMPTS, DEFAULT_RETRY_POLICY, now, () => random);
    const base = now + 6_000 + DEFAULT_RETRY_POLICY.rateLimitMarginMs;
    expect(at(0)).toMatchObject({ action: 'wait', until: base });
    expect(at(0.5)).toMatchObject({ action: 'wait', until: base + DEFAULT_RETRY_POLICY.rateLimitJitterMs / 2 });
    expect(at(1)).toMatchObject({ action: 'wait', until: base + DEFAULT_RETRY_POLICY.rateLimitJitterMs });
  });

  it('never adds more than a tenth of the wait itself (a short window is not skipped)', () => {
    expect(rateLimitJitter({ ...DEFAULT_RETRY_POLICY, rateLimitJitterMs: 1_000 }, 1_000, () => 1)).toBe(100);
    expect(rateLimitJitter(DEFAULT_RETRY_POLICY, 0, () => 1)).toBe(0);
    expect(rateLimitJitter({ ...DEFAULT_RETRY_POLICY, rateLimitJitterMs: 0 }, 60_000, () => 1)).toBe(0);
  });

  it("comes back before the limiter's own margin after a reset: a job the others crowded out is counted first, and seen", () => {
    const latest = DEFAULT_RETRY_POLICY.rateLimitMarginMs + DEFAULT_RETRY_POLICY.rateLimitJitterMs;
    expect(latest).toBeLessThan(DEFAULT_THROTTLE_POLICY.minMarginMs);
  });

  it('spreads jobs refused together over the jitter', () => {
    const times = [0.1, 0.4, 0.7, 0.95].map((r) => decideRetry(refused, NO_ATTEMPTS, DEFAULT_RETRY_POLICY, now, () => r));
    expect(new Set(times.map((decision) => (decision.action === 'wait' ? decision.until : 0))).size).toBe(4);
  });
});
