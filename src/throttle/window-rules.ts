import type { ThrottlePolicy } from '../policy/policy.js';
import type { ReportedWindow } from './rate-headers.js';

/**
 * The rules every pacer applies to the service's windows, each written once: the limiter to its
 * own sends, the shared pacer to every process's reservations, and the policy without a shared
 * store to what the service's counts show of others.
 */

/** A window as the rules see it: fixed when the service has stated its reset, else a sliding period (before its first answer). */
export interface WindowSpan {
  periodMs: number;
  /** When the current fixed window ends (epoch ms); undefined while the service has not said. */
  resetAt?: number | undefined;
}

/** A request sent (by this process, or reserved by any process sharing a store), as the rules count it. */
export interface Send {
  at: number;
  components: number;
  /** The reset of each window (by period) the service counted it in, once its answer said so (countedBy). */
  countedBy?: readonly CountedIn[];
}

/** The window of `periodMs` ending `resetAt` counted a request. */
export interface CountedIn {
  periodMs: number;
  resetAt: number;
}

type Margins = Pick<ThrottlePolicy, 'marginFraction' | 'minMarginMs'>;

/** Slack after a window's reset before the new window is used (and around a sliding period): clock skew and transit jitter. */
export function marginAfterReset(periodMs: number, policy: Margins): number {
  return Math.max(policy.minMarginMs, periodMs * policy.marginFraction);
}

/**
 * The reset of the window in force at `now`: the service's windows are fixed, each resetting at
 * the time its headers state, so one whose reset has passed is followed by the next, whole
 * periods later.
 */
export function rollForward(resetAt: number, periodMs: number, now: number): number {
  if (resetAt > now) return resetAt;
  return resetAt + (Math.floor((now - resetAt) / periodMs) + 1) * periodMs;
}

/**
 * Whether `send` counts in `window` at `now`. In a sliding period: sent within it and its margin.
 * In a fixed window: sent since it began, or in the moment before (transitMs: it may have reached
 * the service after the reset), so a send just before a reset counts in both windows until its
 * answer says which: counted twice, a window's last request took its room from the next one too.
 */
export function countsIn(send: Send, window: WindowSpan, now: number, policy: Margins & Pick<ThrottlePolicy, 'transitMs'>): boolean {
  if (window.resetAt === undefined) return send.at > now - window.periodMs - marginAfterReset(window.periodMs, policy);
  if (send.at < window.resetAt - window.periodMs - policy.transitMs) return false;
  const counted = send.countedBy?.find((entry) => entry.periodMs === window.periodMs);
  return counted === undefined || counted.resetAt >= window.resetAt;
}

/** Where the service counted a request, as its answer's windows say: the reset of each. */
export function countedBy(reported: readonly ReportedWindow[]): CountedIn[] {
  return reported.map((report) => ({ periodMs: report.periodSeconds * 1000, resetAt: report.resetAt }));
}

/** The components of `sends` that count in `window` at `now` (countsIn). */
export function sentIn(
  sends: Iterable<Send>,
  window: WindowSpan,
  now: number,
  policy: Margins & Pick<ThrottlePolicy, 'transitMs'>,
): number {
  let sum = 0;
  for (const send of sends) if (countsIn(send, window, now, policy)) sum += send.components;
  return sum;
}

/**
 * How long a job starting shares as if others started with it (startGraceMs), in a window of
 * `periodMs`: at most its startGracePart, so that a 1 s window is not held back for a whole second.
 */
export function startGraceIn(periodMs: number, policy: Pick<ThrottlePolicy, 'startGraceMs' | 'startGracePart'>): number {
  return Math.min(policy.startGraceMs, periodMs * policy.startGracePart);
}

/** A job's start grace among several windows: the shortest one's. */
export function startGraceMs(
  policy: Pick<ThrottlePolicy, 'startGraceMs' | 'startGracePart'>,
  windows: readonly { periodMs: number }[],
): number {
  return startGraceIn(shortestPeriodMs(windows), policy);
}

/** What a job takes of a window while others may be starting with it: the window over assumedClients and itself. */
export function startShare(limit: number, policy: Pick<ThrottlePolicy, 'assumedClients'>): number {
  return Math.max(1, Math.floor(limit / (policy.assumedClients + 1)));
}

export function shortestPeriodMs(windows: readonly { periodMs: number }[]): number {
  return Math.min(...windows.map((w) => w.periodMs));
}

export function longestPeriodMs(windows: readonly { periodMs: number }[]): number {
  return Math.max(...windows.map((w) => w.periodMs));
}
