import { describe, expect, it } from 'vitest';
import { DEFAULT_THROTTLE_POLICY as POLICY } from '../../src/policy/policy.js';
import { countsIn, marginAfterReset, rollForward, sentIn, startGraceMs, startShare } from '../../src/throttle/window-rules.js';

/** The rules every pacer applies to a window (the limiter, the shared pacer, the policy without a store), with the default policy. */
describe('the window rules', () => {
  it('leave a margin after each reset: half a percent of the window, at least 50 ms', () => {
    expect(marginAfterReset(1_000, POLICY)).toBe(50);
    expect(marginAfterReset(60_000, POLICY)).toBe(300);
  });

  it('roll a fixed window forward by whole periods once its reset has passed', () => {
    expect(rollForward(6_000, 6_000, 5_999)).toBe(6_000);
    expect(rollForward(6_000, 6_000, 6_000)).toBe(12_000);
    expect(rollForward(6_000, 6_000, 25_000)).toBe(30_000);
  });

  it('count a send in the fixed window it was sent in, and in the next one while it may have arrived after the reset', () => {
    const window = { periodMs: 2_000, resetAt: 4_000 };
    const at = (sentAt: number) => countsIn({ at: sentAt, components: 1 }, window, 3_000, POLICY);
    // The window runs from 2 s; a send 200 ms before it (transitMs) may have reached the service after.
    expect([at(1_799), at(1_800), at(2_000), at(3_000)]).toEqual([false, true, true, true]);
  });

  it('stop counting a send in the next window once its answer says the window before counted it', () => {
    const send = { at: 1_900, components: 10, countedBy: [{ periodMs: 2_000, resetAt: 2_000 }] };
    expect(countsIn(send, { periodMs: 2_000, resetAt: 2_000 }, 1_950, POLICY)).toBe(true);
    expect(countsIn(send, { periodMs: 2_000, resetAt: 4_000 }, 2_100, POLICY)).toBe(false);
    // Another window's answer says nothing of this one.
    expect(countsIn(send, { periodMs: 60_000, resetAt: 60_000 }, 2_100, POLICY)).toBe(true);
  });

  it('count sends in a sliding period (no reset stated yet) for the period and its margin', () => {
    const sends = [
      { at: 0, components: 10 },
      { at: 500, components: 20 },
    ];
    expect(sentIn(sends, { periodMs: 60_000 }, 60_299, POLICY)).toBe(30);
    expect(sentIn(sends, { periodMs: 60_000 }, 60_300, POLICY)).toBe(20);
  });

  it('give a starting job a grace of a second, at most a tenth of the shortest window, and a share of 1/17 of a window', () => {
    expect(startGraceMs(POLICY, [{ periodMs: 60_000 }])).toBe(1_000);
    expect(startGraceMs(POLICY, [{ periodMs: 1_000 }, { periodMs: 10_000 }])).toBe(100);
    expect(startShare(250, POLICY)).toBe(14);
    expect(startShare(10, POLICY)).toBe(1);
  });
});
