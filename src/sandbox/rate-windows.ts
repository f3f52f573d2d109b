import { rateLimitHeaders } from '../wire/rate-limit-headers.js';
import type { RateWindow } from './options.js';

interface WindowState {
  window: RateWindow;
  /** Epoch second the current window started: a multiple of the period, so windows are aligned. */
  start: number;
  used: number;
}

/**
 * Fixed windows counted in components, several at once (20/1 and 250/60). A window empties at its
 * Reset time; a request larger than what remains in any window is refused whole.
 */
export class RateWindows {
  readonly #states: WindowState[];

  readonly #now: () => number;

  constructor(windows: readonly RateWindow[], now: () => number) {
    this.#now = now;
    this.#states = windows.map((window) => ({ window, start: 0, used: 0 }));
  }

  get enabled(): boolean {
    return this.#states.length > 0;
  }

  #roll(): void {
    const second = Math.floor(this.#now() / 1000);
    for (const state of this.#states) {
      const start = second - (second % state.window.periodSeconds);
      if (start !== state.start) {
        state.start = start;
        state.used = 0;
      }
    }
  }

  fits(components: number): boolean {
    this.#roll();
    return this.#states.every((state) => state.used + components <= state.window.limit);
  }

  /** The most components one request can ever be granted: the smallest window's limit. */
  get largestRequest(): number {
    return Math.min(...this.#states.map((state) => state.window.limit));
  }

  take(components: number): void {
    this.#roll();
    for (const state of this.#states) state.used += components;
  }

  /**
   * The X-RateLimit-* headers, one comma-separated value per window; none when limits are off.
   * `resetWithinSecond` reports every window as resetting within the next second or two: a
   * spurious 429 tells the client to come back almost at once.
   */
  headers(resetWithinSecond = false): Record<string, string> {
    this.#roll();
    const nowSecond = Math.floor(this.#now() / 1000);
    const states =
      this.#states.length > 0 || !resetWithinSecond
        ? this.#states
        : [{ window: { limit: 0, periodSeconds: 1 }, start: nowSecond, used: 0 }];
    return rateLimitHeaders(
      states.map((state) => ({
        periodSeconds: state.window.periodSeconds,
        limit: state.window.limit,
        remaining: Math.max(0, state.window.limit - state.used),
        resetSecond: resetWithinSecond ? nowSecond + 1 : state.start + state.window.periodSeconds,
      })),
    );
  }
}
