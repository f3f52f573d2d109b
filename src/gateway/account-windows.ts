import { rateLimitHeaders } from '../wire/rate-limit-headers.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';

/**
 * The account's windows as the gateway last heard of them (every answer of the service states them,
 * and the store remembers them between runs), in this machine's time: what the gateway's own
 * answers state in their X-RateLimit-* headers, what the status page shows filling, and what a
 * request's wait is estimated from. Answers arrive in any order: a window's remaining is the least
 * any answer stated for its current reset, as the rate limiter reads them.
 */
export class AccountWindows {
  #windows: ReportedWindow[] = [];

  observe(reported: readonly ReportedWindow[]): void {
    if (reported.length === 0) return;
    const known = this.#windows;
    this.#windows = reported.map((window) => {
      const same = known.find((other) => other.periodSeconds === window.periodSeconds);
      return same?.resetAt === window.resetAt ? { ...window, remaining: Math.min(same.remaining, window.remaining) } : window;
    });
  }

  /** The windows as they stand at `now`: one whose reset has passed is full again, its next reset a period on. */
  at(now: number): ReportedWindow[] {
    this.#windows = this.#windows.map((window) => {
      if (window.resetAt > now) return window;
      const periodMs = window.periodSeconds * 1000;
      const periods = Math.floor((now - window.resetAt) / periodMs) + 1;
      return { ...window, remaining: window.limit, resetAt: window.resetAt + periods * periodMs };
    });
    return this.#windows;
  }

  /** The X-RateLimit-* headers of an answer at `now` (none before the service has stated its windows). */
  headers(now: number): Record<string, string> {
    return rateLimitHeaders(
      this.at(now).map((window) => ({
        periodSeconds: window.periodSeconds,
        limit: window.limit,
        remaining: Math.max(0, window.remaining),
        resetSecond: Math.ceil(window.resetAt / 1000),
      })),
    );
  }

  /**
   * When `components` more could go, at the earliest, at `now`: at once while every window has
   * that much left, else at the reset of the window that has not, and as many periods later as the
   * rest needs. Before the service has stated its windows, at once: --rate is a guess for pacing
   * the first requests, not grounds for refusing any (the request's own wait limit still holds).
   */
  readyAt(components: number, now: number): { at: number; periodSeconds?: number } {
    const windows = this.at(now);
    if (windows.length === 0) return { at: now };
    let latest: { at: number; periodSeconds?: number } = { at: now };
    for (const window of windows) {
      const beyond = components - Math.max(0, window.remaining);
      if (beyond <= 0) continue;
      const at = window.resetAt + (Math.ceil(beyond / window.limit) - 1) * window.periodSeconds * 1000;
      if (at > latest.at) latest = { at, periodSeconds: window.periodSeconds };
    }
    return latest;
  }
}
