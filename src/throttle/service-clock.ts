import { parseRateHeaders, windowsInLocalTime, type ReportedWindow } from './rate-headers.js';

/**
 * How far the service's clock is ahead of ours (service time − local time, ms), as an interval
 * the answers so far prove: the true offset lies in [lo, hi].
 */
export interface OffsetBounds {
  lo: number;
  hi: number;
}

/** One answer: its headers, and when (on the run's clock) the request went out and the answer came in. */
export interface TimedAnswer {
  headers: Readonly<Record<string, string | undefined>>;
  sentAt: number;
  receivedAt: number;
}

/** The HTTP Date header has whole seconds: the service's time when it answered was in [Date, Date + 1 s). */
const DATE_RESOLUTION_MS = 1_000;

const intersect = (a: OffsetBounds, b: OffsetBounds): OffsetBounds => ({ lo: Math.max(a.lo, b.lo), hi: Math.min(a.hi, b.hi) });

const isEmpty = (bounds: OffsetBounds) => bounds.lo > bounds.hi;

/**
 * What one answer proves: the service's time when it answered, T, was in [Date, Date + 1 s), and
 * in [reset − period, reset) for each window it stated (its windows are fixed: each resets at the
 * time stated). Locally that moment lay between sending and receiving, so T − local time lies in
 * [T's lowest − receivedAt, T's highest − sentAt]. Undefined when the answer states no time, or
 * contradicts itself.
 */
// Exported for test/throttle/service-clock.test.ts: the bounds one answer proves, with set times.
export function offsetProvenBy({ headers, sentAt, receivedAt }: TimedAnswer): OffsetBounds | undefined {
  const serviceTimes: OffsetBounds[] = parseRateHeaders(headers).map((window) => ({
    lo: window.resetAt - window.periodSeconds * 1000,
    hi: window.resetAt,
  }));
  const date = headers.date === undefined ? Number.NaN : Date.parse(headers.date);
  if (Number.isFinite(date)) serviceTimes.push({ lo: date, hi: date + DATE_RESOLUTION_MS });
  if (serviceTimes.length === 0) return undefined;
  const serviceTime = serviceTimes.reduce(intersect);
  if (isEmpty(serviceTime)) return undefined;
  return { lo: serviceTime.lo - receivedAt, hi: serviceTime.hi - sentAt };
}

/**
 * The offset known after one more answer: what both prove. When they disagree, a clock was set
 * (here or at the service) and the earlier answers no longer describe it: start again from the latest.
 */
export function narrowOffset(known: OffsetBounds | undefined, proven: OffsetBounds | undefined): OffsetBounds | undefined {
  if (proven === undefined) return known;
  if (known === undefined) return proven;
  const both = intersect(known, proven);
  return isEmpty(both) ? proven : both;
}

/**
 * What to subtract from a service time to have the local time by which it has surely come. Only a
 * proven skew is corrected: while the offset may be 0, none (the windows' margins cover what is
 * left). Otherwise the far end, lo: the service's time T comes here between T − hi and T − lo, and
 * waiting for T − hi could be early, which the service answers with a 429.
 */
// Exported for test/throttle/service-clock.test.ts: the correction from set bounds.
export function correctionFor(offset: OffsetBounds | undefined): number {
  if (offset === undefined || (offset.lo <= 0 && offset.hi >= 0)) return 0;
  return offset.lo;
}

/**
 * The service's clock as seen from here, learnt from every answer: the times it states (window
 * resets, a Retry-After date) are turned into local times to wait for, so that a machine whose
 * clock is behind the service's does not idle past each reset, and one ahead does not send before it.
 */
export class ServiceClock {
  #offset: OffsetBounds | undefined;

  /** The offset as far as the answers prove it; undefined before any answer has stated a time. */
  get offset(): OffsetBounds | undefined {
    return this.#offset;
  }

  observe(answer: TimedAnswer): void {
    this.#offset = narrowOffset(this.#offset, offsetProvenBy(answer));
  }

  /** A time the service stated (epoch ms on its clock) as the local time by which it has come. */
  readonly toLocal = (serviceTime: number): number => serviceTime - correctionFor(this.#offset);

  /** Windows as the service stated them, their resets in local time. */
  localWindows(windows: readonly ReportedWindow[]): ReportedWindow[] {
    return windowsInLocalTime(windows, this.toLocal);
  }
}
