/** One rate-limit window as the service reports it in the X-RateLimit-* headers. */
export interface ReportedWindow {
  periodSeconds: number;
  limit: number;
  remaining: number;
  /** When the window resets, epoch milliseconds. */
  resetAt: number;
}

function numbers(value: string | undefined): number[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((part) => Number(part.trim()));
}

/**
 * The headers carry one comma-separated value per window. Anything malformed yields no windows
 * rather than a guess: pacing then falls back to the configured rate.
 */
export function parseRateHeaders(headers: Record<string, string | undefined>): ReportedWindow[] {
  const periods = numbers(headers['x-ratelimit-period']);
  const limits = numbers(headers['x-ratelimit-limit']);
  const remaining = numbers(headers['x-ratelimit-remaining']);
  const resets = numbers(headers['x-ratelimit-reset']);
  const count = periods.length;
  if (count === 0 || limits.length !== count || remaining.length !== count || resets.length !== count) return [];
  const windows = periods.map((periodSeconds, i) => ({
    periodSeconds,
    limit: limits[i]!,
    remaining: remaining[i]!,
    resetAt: resets[i]! * 1000,
  }));
  return windows.every((w) => [w.periodSeconds, w.limit, w.remaining, w.resetAt].every(Number.isFinite) && w.periodSeconds > 0)
    ? windows
    : [];
}

/**
 * When to retry after a 429: the latest reset among exhausted windows; if none is reported as
 * exhausted (a spurious 429), the earliest reset still ahead.
 */
// Exported for the tests (test/helpers/one-account.ts builds the client's own 429 error with it).
export function retryAfterRateLimit(windows: readonly ReportedWindow[], now = Date.now()): number | undefined {
  const exhausted = windows.filter((w) => w.remaining <= 0 && w.resetAt > now);
  if (exhausted.length > 0) return Math.max(...exhausted.map((w) => w.resetAt));
  const ahead = windows.filter((w) => w.resetAt > now);
  return ahead.length > 0 ? Math.min(...ahead.map((w) => w.resetAt)) : undefined;
}

/** A time the service stated, as the local time to wait for (ServiceClock.toLocal); by default the clocks agree. */
export type ToLocalTime = (serviceTime: number) => number;

const sameTime: ToLocalTime = (time) => time;

/** The windows with their resets in local time. */
export function windowsInLocalTime(windows: readonly ReportedWindow[], toLocal: ToLocalTime): ReportedWindow[] {
  return windows.map((window) => ({ ...window, resetAt: toLocal(window.resetAt) }));
}

/**
 * `Retry-After` as local epoch ms: delay-seconds count from now (already relative: no clock to
 * correct), an HTTP date is the service's time; undefined when absent or unreadable.
 */
function parseRetryAfter(value: string | undefined, now = Date.now(), toLocal = sameTime): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return now + Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isFinite(date) ? toLocal(date) : undefined;
}

/**
 * When a 429 says to come back, in local time: the later of `Retry-After` (the server's explicit
 * word) and the reset of the exhausted window, so that neither is ignored; undefined when it says neither.
 */
export function retryAtAfter429(headers: Record<string, string | undefined>, now = Date.now(), toLocal = sameTime): number | undefined {
  const windows = windowsInLocalTime(parseRateHeaders(headers), toLocal);
  const times = [parseRetryAfter(headers['retry-after'], now, toLocal), retryAfterRateLimit(windows, now)].filter(
    (time): time is number => time !== undefined,
  );
  return times.length > 0 ? Math.max(...times) : undefined;
}
