import type { ReportedWindow } from '../throttle/rate-headers.js';
import { STORE_WAITS } from '../policy/policy.js';

/**
 * A window as it stands at `now`: one whose reset has passed has been renewed in full, at the next
 * multiple of its period after the reset reported.
 */
function asOf(window: ReportedWindow, now: number): ReportedWindow {
  if (window.resetAt > now) return window;
  const periodMs = window.periodSeconds * 1000;
  const periods = Math.floor((now - window.resetAt) / periodMs) + 1;
  return { ...window, remaining: window.limit, resetAt: window.resetAt + periods * periodMs };
}

/** Windows saved at `savedAt`, as they stand at `now`; undefined once older than STORE_WAITS.windowsFreshMs. */
export function windowsAsOf(saved: readonly ReportedWindow[], savedAt: number, now: number): ReportedWindow[] | undefined {
  if (now - savedAt > STORE_WAITS.windowsFreshMs) return undefined;
  return saved.map((window) => asOf(window, now));
}
