import { describe, expect, it } from 'vitest';
import {
  CLAIMS,
  DEFAULT_POLICY as DEFAULTS,
  DEFAULT_RETRY_POLICY,
  GATEWAY_WAITS,
  OUTPUT_LOCK,
  policyProblems,
  STORE_WAITS,
} from '../../src/policy/policy.js';

describe('the timing policy', () => {
  it('keeps every relation between its defaults', () => {
    expect(policyProblems(DEFAULTS)).toEqual([]);
  });

  it.each([
    ['a 429 retry coming back after the others', { retry: { ...DEFAULT_RETRY_POLICY, rateLimitMarginMs: 60 } }, /limiter's margin/],
    ['two waits for the rate limit', { retry: { ...DEFAULT_RETRY_POLICY, maxWaitMs: 60_000 } }, /wait for the rate limit alike/],
    ['a claim renewed once a lease', { claims: { ...CLAIMS, renewalMs: 40_000 } }, /renewed at least twice a lease/],
    [
      'a wait for a claim shorter than the holder may wait',
      { claims: { ...CLAIMS, waitLimitMs: 10 * 60_000 } },
      /outlast its rate-limit wait/,
    ],
    [
      'a stalled lock holder outliving its waiters',
      { claims: { ...CLAIMS, idleInTransactionMs: 30_000 } },
      /cut off before the others stop/,
    ],
    [
      'a stalled statement noticed after the outage wait',
      { store: { ...STORE_WAITS, queryTimeoutMs: 600_000 } },
      /well within --store-wait/,
    ],
    ['a lock refreshed as seldom as it goes stale', { outputLock: { ...OUTPUT_LOCK, refreshMs: 30_000 } }, /refreshed several times/],
    [
      'a gateway slower than its clients wait',
      { gateway: { ...GATEWAY_WAITS, maxWaitMs: 90_000 } },
      /before a propdata client stops waiting/,
    ],
  ])('says what is wrong with %s', (_, change, problem) => {
    expect(policyProblems({ ...DEFAULTS, ...change })).toEqual([expect.stringMatching(problem)]);
  });
});
