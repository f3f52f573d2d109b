/** A window as the X-RateLimit-* headers state it: its reset in whole epoch seconds. */
export interface StatedWindow {
  periodSeconds: number;
  limit: number;
  remaining: number;
  resetSecond: number;
}

/** The X-RateLimit-* headers, one comma-separated value per window; none without windows. */
export function rateLimitHeaders(windows: readonly StatedWindow[]): Record<string, string> {
  if (windows.length === 0) return {};
  const join = (value: (window: StatedWindow) => number) => windows.map(value).join(',');
  return {
    'X-RateLimit-Period': join((window) => window.periodSeconds),
    'X-RateLimit-Limit': join((window) => window.limit),
    'X-RateLimit-Remaining': join((window) => window.remaining),
    'X-RateLimit-Reset': join((window) => window.resetSecond),
  };
}
