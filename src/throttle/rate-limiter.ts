import { SYSTEM_CLOCK, type Clock } from './clock.js';
import type { ReportedWindow } from './rate-headers.js';

export interface ThrottlePolicy {
  /** Components per minute assumed until the service's headers describe the real windows. */
  initialPerMinute: number;
  /**
   * The most the first request may carry, before any response has described the windows: small,
   * so that a window tighter than a batch (20 a second against batches of 100) is learnt from a
   * request it admits, not from a 429.
   */
  firstRequestComponents: number;
  /** Slack added to every window, as a fraction of its length (bounded below by minMarginMs): transit jitter. */
  marginFraction: number;
  minMarginMs: number;
  /** Called whenever the pipeline is about to wait for the rate limit (for progress and stats). */
  onWait?: (ms: number, reason: 'window' | 'rate-limited') => void;
}

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = { initialPerMinute: 250, firstRequestComponents: 10, marginFraction: 0.02, minMarginMs: 20 };

/** A permit to send `components` now; handed back with the response's headers. */
export interface Reservation {
  readonly components: number;
  /** Components reserved up to and including this one: lets a response's `remaining` be adjusted for later sends. */
  readonly sequence: number;
}

interface Window {
  periodMs: number;
  limit: number;
  /** What we sent inside the last period, oldest first: a sliding window never exceeds any fixed one. */
  sent: { at: number; components: number; sequence: number }[];
  sentTotal: number;
  /** What the service last said remains, adjusted for what we sent since; unknown after resetAt. */
  budget?: { remaining: number; resetAt: number };
}

/**
 * Paces components across every window the service reports. Two sources of truth are combined:
 * our own sliding log of sends (exact for what we do) and the service's X-RateLimit-* headers
 * (which also see other clients of the same account and earlier runs). Requests are granted in
 * FIFO order. Until the first response arrives only one request is let out, so that a quota
 * already spent by an earlier run costs one 429 at most, not a burst of them.
 */
export class RateLimiter {
  readonly #policy: ThrottlePolicy;
  readonly #clock: Clock;
  #windows: Window[];
  #sequence = 0;
  #pausedUntil = 0;
  #calibrated = false;
  #outstanding = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #waitedMs = 0;
  #waitingUntil = 0;

  constructor(policy: ThrottlePolicy = DEFAULT_THROTTLE_POLICY, clock: Clock = SYSTEM_CLOCK) {
    this.#policy = policy;
    this.#clock = clock;
    this.#windows = [this.#window(60, policy.initialPerMinute)];
  }

  /** Total time spent waiting for the rate limit, in ms. */
  get waitedMs(): number {
    return this.#waitedMs;
  }

  /** Epoch ms until which the pipeline is waiting, or 0 when it is not. */
  get waitingUntil(): number {
    return this.#waitingUntil > this.#clock.now() ? this.#waitingUntil : 0;
  }

  /** The windows in force, for the summary: `250/60s`. */
  describe(): string {
    return this.#windows.map((w) => `${w.limit}/${w.periodMs / 1000}s`).join(', ');
  }

  /**
   * The largest request any window can ever admit: a batch bigger than this must be split, or it
   * would be refused with a 429 however long it waited (100 items against a 20-per-second window).
   */
  get largestRequest(): number {
    const largest = Math.min(...this.#windows.map((window) => window.limit));
    return this.#calibrated ? largest : Math.min(largest, this.#policy.firstRequestComponents);
  }

  /**
   * A permit for `components`. With a smaller `unit` (the components of one item) it may grant
   * fewer, in whole units: never more than the largest request the windows admit (as known when
   * the grant is made), and what fits now when that is less, so that what the windows have left
   * is used at once instead of idling until a whole batch fits (250 a minute in batches of 100
   * would otherwise send 200). `reservation.components` says how much was granted.
   */
  acquire(components: number, signal?: AbortSignal, unit: number = components): Promise<Reservation> {
    const turn = this.#queue.then(() => this.#waitForRoom(components, unit, signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /**
   * The service refused the request (429) and did not count it: take it out of the log, so that
   * the retry does not wait for room the refused attempt never used.
   */
  refund(reservation: Reservation): void {
    for (const window of this.#windows) {
      const at = window.sent.findIndex((entry) => entry.sequence === reservation.sequence);
      if (at < 0) continue;
      window.sentTotal -= window.sent[at]!.components;
      window.sent.splice(at, 1);
    }
  }

  /** After a response (or a failure without one): learn the windows and the service's remaining counts. */
  observe(reservation: Reservation, reported: readonly ReportedWindow[]): void {
    this.#outstanding = Math.max(0, this.#outstanding - 1);
    this.#calibrated = true;
    if (reported.length === 0) return;
    const sentSince = this.#sequence - reservation.sequence;
    this.#windows = reported.map((report) => {
      const known = this.#windows.find((w) => w.periodMs === report.periodSeconds * 1000) ?? this.#window(report.periodSeconds, report.limit);
      known.limit = report.limit;
      const remaining = report.remaining - sentSince;
      const budget = known.budget;
      if (!budget || report.resetAt > budget.resetAt) known.budget = { remaining, resetAt: report.resetAt };
      else if (report.resetAt === budget.resetAt) budget.remaining = Math.min(budget.remaining, remaining);
      return known;
    });
  }

  /** After a 429: nobody sends before `until` (epoch ms), plus the margin. */
  pauseUntil(until: number): void {
    const margin = Math.max(this.#policy.minMarginMs, 250);
    this.#pausedUntil = Math.max(this.#pausedUntil, until + margin);
    for (const window of this.#windows) {
      if (window.budget && window.budget.resetAt <= until) window.budget.remaining = 0;
    }
  }

  #window(periodSeconds: number, limit: number): Window {
    return { periodMs: periodSeconds * 1000, limit, sent: [], sentTotal: 0 };
  }

  #margin(window: Window): number {
    return Math.max(this.#policy.minMarginMs, window.periodMs * this.#policy.marginFraction);
  }

  async #waitForRoom(components: number, unit: number, signal?: AbortSignal): Promise<Reservation> {
    for (;;) {
      signal?.throwIfAborted();
      if (!this.#calibrated && this.#outstanding > 0) {
        await this.#clock.sleep(10, signal);
        continue;
      }
      const now = this.#clock.now();
      const most = unit < components ? Math.min(components, Math.max(unit, Math.floor(this.largestRequest / unit) * unit)) : components;
      const grant = unit < most && this.#pausedUntil <= now ? this.#partialGrant(most, unit, now) : 0;
      if (grant > 0) {
        this.#waitingUntil = 0;
        return this.#reserve(grant, now);
      }
      const wanted = unit < most ? unit : most;
      const readyAt = Math.max(this.#pausedUntil, ...this.#windows.map((w) => this.#readyAt(w, wanted, now)));
      if (readyAt <= now) {
        this.#waitingUntil = 0;
        return this.#reserve(wanted, now);
      }
      const wait = readyAt - now;
      this.#waitingUntil = readyAt;
      this.#policy.onWait?.(wait, this.#pausedUntil >= readyAt ? 'rate-limited' : 'window');
      this.#waitedMs += wait;
      await this.#clock.sleep(wait, signal);
    }
  }

  /** Forgets sends older than the window and a reported budget whose window has reset. */
  #prune(window: Window, now: number): void {
    const span = window.periodMs + this.#margin(window);
    while (window.sent.length > 0 && window.sent[0]!.at + span <= now) window.sentTotal -= window.sent.shift()!.components;
    if (window.budget && window.budget.resetAt <= now) delete window.budget;
  }

  /** The most whole units, up to `components`, that every window has room for now; 0 if not one unit. */
  #partialGrant(components: number, unit: number, now: number): number {
    let room = components;
    for (const window of this.#windows) {
      this.#prune(window, now);
      room = Math.min(room, window.limit - window.sentTotal, window.budget?.remaining ?? Infinity);
    }
    return Math.max(0, Math.floor(room / unit) * unit);
  }

  /** The earliest time `window` lets `components` more through. */
  #readyAt(window: Window, components: number, now: number): number {
    const span = window.periodMs + this.#margin(window);
    this.#prune(window, now);

    let readyAt = now;
    if (window.budget && window.budget.remaining < components) readyAt = window.budget.resetAt + this.#margin(window);
    // A request larger than the whole window can only ever go alone.
    const needed = Math.min(components, window.limit);
    let total = window.sentTotal;
    for (const entry of window.sent) {
      if (total + needed <= window.limit) break;
      total -= entry.components;
      readyAt = Math.max(readyAt, entry.at + span);
    }
    return readyAt;
  }

  #reserve(components: number, now: number): Reservation {
    this.#sequence += components;
    this.#outstanding += 1;
    for (const window of this.#windows) {
      window.sent.push({ at: now, components, sequence: this.#sequence });
      window.sentTotal += components;
      if (window.budget) window.budget.remaining -= components;
    }
    return { components, sequence: this.#sequence };
  }
}
