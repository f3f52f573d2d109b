import { RateWindows } from '../../src/sandbox/rate-windows.js';
import { parseRateHeaders, type ReportedWindow } from '../../src/throttle/rate-headers.js';
import type { FakeClock } from './fake-clock.js';

/** One fixed window: at most `limit` components per `periodSeconds`. */
export interface Limit {
  limit: number;
  periodSeconds: number;
}

/** Header names as a client reads them (lower case), whatever case the service wrote. */
export const lowerCaseHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/**
 * A strict service in virtual time: the sandbox's own fixed windows (src/sandbox/rate-windows.ts),
 * aligned to the epoch, driven by the test's clock. A request any window lacks room for is refused
 * (429) and not counted; every answer states the windows as the service's X-RateLimit-* headers
 * do, read back as a client reads them.
 */
export function strictService(limits: readonly Limit[], clock: FakeClock) {
  const windows = new RateWindows(limits, () => clock.now());
  const report = (): ReportedWindow[] => parseRateHeaders(lowerCaseHeaders(windows.headers()));
  return {
    refused: 0,
    /** Every request counted, when it arrived, in order. */
    counted: [] as { at: number; components: number }[],
    /** The windows as they stand, as an answer's headers state them. */
    report,
    /** Counts the request, or refuses it (429) when any window lacks room. */
    arrive(components: number): { ok: boolean; windows: ReportedWindow[] } {
      if (!windows.fits(components)) {
        this.refused += 1;
        return { ok: false, windows: report() };
      }
      windows.take(components);
      this.counted.push({ at: clock.now(), components });
      return { ok: true, windows: report() };
    },
  };
}
