import { setTimeout as sleep } from 'node:timers/promises';

/** Time, injectable so the limiter can be tested without waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `fire` after `ms` unless the returned function cancels it first. Optional: a clock
   * without it (a test's fake) gets one built on `sleep` (startTimer).
   */
  timer?(ms: number, fire: () => void): () => void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : undefined),
  // A plain timer: every request's deadline is set and then cancelled by its answer, and a
  // cancelled sleep made an AbortController, a signal, a listener and an AbortError each time.
  timer: (ms, fire) => {
    const timeout = setTimeout(fire, ms);
    return () => clearTimeout(timeout);
  },
};

/**
 * Why a wait was cut short on purpose: given to `abort()`, which otherwise makes a DOMException,
 * stack trace and all, for a reason nobody reads. Not an Error: such waits are ordinary, not failures.
 */
export const CUT_SHORT = Symbol('cut short');

/**
 * Calls `fire` after `ms` on `clock`, unless the returned function cancels it first: a setTimeout
 * that keeps the clock's time (a test's fake clock makes a deadline of a minute take none).
 */
export function startTimer(clock: Clock, ms: number, fire: () => void): () => void {
  if (clock.timer) return clock.timer(ms, fire);
  const cancel = new AbortController();
  clock.sleep(ms, cancel.signal).then(fire, () => undefined);
  return () => cancel.abort(CUT_SHORT);
}
