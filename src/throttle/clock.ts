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
