import { onTestFinished, vi } from 'vitest';
import type { Clock } from '../../src/throttle/clock.js';

interface Timer {
  at: number;
  order: number;
  fire: () => void;
}

/** 2030-01-01T00:00:00Z: a whole day, so windows aligned on their period start with it. */
export const FAKE_EPOCH = Date.UTC(2030, 0, 1);

/**
 * Virtual time for code that waits only through a Clock. Sleepers are timers on a virtual
 * timeline; when everything else has run (one turn of the event loop after the microtasks are
 * done), the clock jumps to the earliest timer and fires every timer due then. Waits of minutes
 * take no time, and several sleepers overlap as they would with real timers: two senders each
 * waiting a second take one virtual second, not two.
 *
 * Only work that waits on this clock is "in virtual time": a real socket or a real timer keeps
 * its own pace, and the clock may jump while it is pending (as time passes during a request).
 */
export class FakeClock implements Clock {
  #now: number;
  #timers: Timer[] = [];
  #order = 0;
  #scheduled = false;
  #followsDate = false;
  #paused = false;
  /** Every sleep asked for, in ms, in the order asked. */
  readonly slept: number[] = [];

  constructor(start = FAKE_EPOCH) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Virtual ms since `since` (default: the clock's start). */
  elapsed(since = FAKE_EPOCH): number {
    return this.#now - since;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.slept.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = () => {
        this.#timers = this.#timers.filter((other) => other !== timer);
        reject(signal!.reason as Error);
      };
      const timer: Timer = {
        at: this.#now + Math.max(0, ms),
        order: this.#order++,
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#timers.push(timer);
      this.#schedule();
    });
  }

  /**
   * Holds virtual time still until resume(): for a wait on real I/O (a request on its way to a
   * real server) that must not be overtaken by a jump to the next timer (the request's deadline).
   */
  pause(): this {
    this.#paused = true;
    return this;
  }

  resume(): void {
    this.#paused = false;
    this.#schedule();
  }

  /**
   * Makes `Date.now()` (and `new Date()`) read this clock until the test ends: for code that reads
   * the wall clock instead of a Clock (a 429's Retry-After and X-RateLimit-Reset are turned into
   * waits against `Date.now()` in throttle/rate-headers.ts, called without a `now` by
   * client/interpret-response.ts).
   */
  followDate(): this {
    vi.useFakeTimers({ toFake: ['Date'], now: this.#now });
    this.#followsDate = true;
    onTestFinished(() => {
      vi.useRealTimers();
    });
    return this;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#tick();
    });
  }

  #tick(): void {
    this.#scheduled = false;
    if (this.#paused || this.#timers.length === 0) return;
    const at = Math.min(...this.#timers.map((timer) => timer.at));
    if (at > this.#now) {
      this.#now = at;
      if (this.#followsDate) vi.setSystemTime(at);
    }
    const due = this.#timers.filter((timer) => timer.at <= this.#now).sort((a, b) => a.at - b.at || a.order - b.order);
    this.#timers = this.#timers.filter((timer) => timer.at > this.#now);
    for (const timer of due) timer.fire();
    if (this.#timers.length > 0) this.#schedule();
  }
}
