import type { ReportedWindow } from '../throttle/rate-headers.js';

/**
 * How long remembered windows are trusted. Periods and limits are the account's plan, which seldom
 * changes; a week lets a nightly job (or a weekly one) start at the pace it ended at. Being wrong
 * costs one 429, after which the service's headers are learnt again.
 */
export const WINDOWS_FRESH_MS = 7 * 86_400_000;

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

/** Windows saved at `savedAt`, as they stand at `now`; undefined once older than WINDOWS_FRESH_MS. */
export function windowsAsOf(saved: readonly ReportedWindow[], savedAt: number, now: number): ReportedWindow[] | undefined {
  if (now - savedAt > WINDOWS_FRESH_MS) return undefined;
  return saved.map((window) => asOf(window, now));
}
