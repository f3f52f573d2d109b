import { setTimeout as sleep } from 'node:timers/promises';

/** Time, injectable so the limiter can be tested without waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : undefined),
};

/**
 * Calls `fire` after `ms` on `clock`, unless the returned function cancels it first: a setTimeout
 * that keeps the clock's time (a test's fake clock makes a deadline of a minute take none).
 */
export function startTimer(clock: Clock, ms: number, fire: () => void): () => void {
  const cancel = new AbortController();
  clock.sleep(ms, cancel.signal).then(fire, () => undefined);
  return () => cancel.abort();
}
