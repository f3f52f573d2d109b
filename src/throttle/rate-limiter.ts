import { SYSTEM_CLOCK, type Clock } from './clock.js';
import { GrantQueue, type AcquireOptions, type Ask } from './grant-queue.js';
import { OtherClients } from './other-clients.js';
import type { JobView, PaceDecision, Pacing } from './pacing.js';
import { DEFAULT_THROTTLE_POLICY, type ThrottlePolicy } from '../policy/policy.js';
import type { ReportedWindow } from './rate-headers.js';
import { ServiceClock } from './service-clock.js';
import type { SharedPacer } from './shared-pacer.js';
import { SharedPacing } from './shared-pacing.js';
import { countedBy, countsIn, longestPeriodMs, marginAfterReset, rollForward, sentIn, type Send, type WindowSpan } from './window-rules.js';
import { ItemTooWideError, UnusableRateLimitError } from '../errors/index.js';

/** Whether a window's limit can be paced by: components are whole, and a window of none admits nothing. */
const paceable = (window: ReportedWindow) => Number.isInteger(window.limit) && window.limit > 0;

/** How a request asks (its unit, its row, its stop signal): the queue's options, part of the limiter's API. */
export type { AcquireOptions };

/** One window's use as it stands: `used` of `limit` components in a period of `periodMs`. */
export interface WindowPace {
  used: number;
  limit: number;
  periodMs: number;
}

/** A permit to send `components` now; handed back with the response's headers. */
export interface Reservation {
  readonly components: number;
  /** Components reserved up to and including this one: names it in the log (a refund takes it out). */
  readonly sequence: number;
  /** Its id in the shared pacer, when one is in use. */
  readonly shared?: number;
}

/** One of our sends, in the log of what we sent. */
interface LoggedSend extends Send {
  /** Its reservation's sequence: a refund takes it out, an answer says where it was counted. */
  sequence: number;
}

interface Window {
  periodMs: number;
  limit: number;
  /**
   * What is left of the window ending resetAt: the least the service said remains (`reported`;
   * its answers arrive in any order, and its count only grows), less what we have in flight.
   */
  budget?: { remaining: number; resetAt: number; reported: number };
}

/**
 * Paces components across every window the service reports. Two sources of truth are combined:
 * our own log of sends (exact for what we do) and the service's X-RateLimit-* headers (which also
 * see other clients of the same account and earlier runs). How much of what they leave this job
 * may take, with other clients of the account about, is its pacing's to say (Pacing: without a
 * shared store by default; shareWith for one). Requests are granted in priority order (the
 * earliest input row first, then first come): what a window admits goes to the rows the ordered
 * output is waiting for, so paid answers never sit behind later rows. Until the first response
 * arrives only one request is let out, so that a quota already spent by an earlier run costs one
 * 429 at most, not a burst of them.
 */
export class RateLimiter {
  readonly #policy: ThrottlePolicy;
  readonly #clock: Clock;
  #windows: Window[];
  /** What we sent that any window may still count, oldest first: a sliding window never exceeds any fixed one. */
  #sent: LoggedSend[] = [];
  #sequence = 0;
  #pausedUntil = 0;
  #calibrated = false;
  #outstanding = 0;
  /** Components reserved and not yet answered (observe). */
  #inFlight = 0;
  /** When the latest grant was made. */
  #lastSentAt = -Infinity;
  /** The reservation made while none was in flight, and none since: its answer came from a request alone. */
  #soleSequence = -1;
  /** Requests waiting for a grant, in row order: served whenever the windows admit the head. */
  readonly #queue: GrantQueue<Reservation>;
  /** How this job shares the windows with the account's other clients. */
  #pacing: Pacing;
  /** Why nothing more may be granted (the shared pacer failed, a limit no pacing keeps): every grant fails with it. */
  #fatal: { error: unknown } | undefined;
  /** Whether the windows in force are the service's (stated in its headers, now or in an earlier run), not --rate's assumption. */
  #stated = false;
  /**
   * The service's clock against the run's, fed with every answer by whoever sends: the resets it
   * states are observed here in local time (ServiceClock.localWindows). One per limiter, as the
   * windows are: both describe the service this run paces.
   */
  readonly serviceClock = new ServiceClock();

  constructor(policy: ThrottlePolicy = DEFAULT_THROTTLE_POLICY, clock: Clock = SYSTEM_CLOCK) {
    this.#policy = policy;
    this.#clock = clock;
    this.#pacing = new OtherClients(policy);
    this.#windows = [{ periodMs: 60_000, limit: policy.initialPerMinute }];
    this.#queue = new GrantQueue<Reservation>(
      {
        decide: (head, demand) => this.#decide(head, demand),
        grant: (components, shared) => this.#reserve(components, this.#clock.now(), shared),
        giveBack: (components, shared) => this.#pacing.refunded({ components, ...(shared !== undefined ? { shared } : {}) }),
      },
      clock,
      policy.maxWaitMs,
    );
  }

  /** Total time spent waiting for the rate limit, in ms. */
  get waitedMs(): number {
    return this.#queue.waitedMs;
  }

  /** Epoch ms until which the pipeline is waiting, or 0 when it is not. */
  get waitingUntil(): number {
    return this.#queue.waitingUntil;
  }

  /** Whether the windows in force were stated by the service (its headers, or an earlier run's), rather than assumed from --rate. */
  get stated(): boolean {
    return this.#stated;
  }

  /** The windows in force, for the summary: `250/60s`. */
  describe(): string {
    return this.#windows.map((w) => `${w.limit}/${w.periodMs / 1000}s`).join(', ');
  }

  /**
   * The window that sets the run's pace (the least per minute) and what is used of it now: the
   * service's count (less what it has left; requests in flight included), or before it states
   * one, our own sends within its period. Never more than its limit, unlike a rate measured over
   * a span that a window's burst falls into.
   */
  get pace(): WindowPace {
    const window = this.#windows.reduce((tightest, other) =>
      other.limit / other.periodMs < tightest.limit / tightest.periodMs ? other : tightest,
    );
    const now = this.#clock.now();
    this.#prune(now);
    const used = window.budget ? window.limit - window.budget.remaining : this.#sentIn({ periodMs: window.periodMs }, now);
    return { used: Math.min(window.limit, Math.max(0, used)), limit: window.limit, periodMs: window.periodMs };
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
  acquire(components: number, options: AcquireOptions = {}): Promise<Reservation> {
    return this.#queue.acquire(components, options);
  }

  /**
   * All of `components`, granted in parts as the windows admit them. The request keeps its place
   * in the queue between parts: the rest of a batch whose first part went out (the probe, or what
   * a window had left) is served before any later row, without having to ask again.
   */
  grants(components: number, options: AcquireOptions = {}): AsyncGenerator<Reservation> {
    return this.#queue.grants(components, options);
  }

  /**
   * The service refused the request (429) and did not count it: take it out of the log, so that
   * the retry does not wait for room the refused attempt never used.
   */
  refund(reservation: Reservation): void {
    const at = this.#sent.findIndex((entry) => entry.sequence === reservation.sequence);
    if (at >= 0) this.#sent.splice(at, 1);
    this.#pacing.refunded(reservation);
    this.#changed();
  }

  /** After a response (or a failure without one): learn the windows and the service's remaining counts. */
  observe(reservation: Reservation, reported: readonly ReportedWindow[]): void {
    this.#outstanding = Math.max(0, this.#outstanding - 1);
    this.#inFlight = Math.max(0, this.#inFlight - reservation.components);
    this.#calibrated = true;
    const now = this.#clock.now();
    const unusable = reported.find((window) => !paceable(window));
    if (unusable) {
      // Nothing can be paced by it, nor shared with others: the run stops with what the headers said.
      this.#fatal ??= { error: new UnusableRateLimitError(unusable) };
      this.#changed();
      return;
    }
    if (reported.length > 0) {
      this.#stated = true;
      this.#windows = reported.map((report) => {
        const periodMs = report.periodSeconds * 1000;
        const known = this.#windows.find((window) => window.periodMs === periodMs);
        return known ? Object.assign(known, { limit: report.limit }) : { periodMs, limit: report.limit };
      });
    }
    // Read against the windows as the service states them (the first answer replaces --rate's
    // guess), before the answer is applied to them.
    this.#pacing.answered(reservation, reported, this.#view(now), reservation.sequence === this.#soleSequence);
    const sent = this.#sent.find((entry) => entry.sequence === reservation.sequence);
    if (sent && reported.length > 0) sent.countedBy = countedBy(reported);
    reported.forEach((report, i) => {
      const known = this.#windows[i]!;
      // The least remaining any answer stated (every request answered so far is in it: one that
      // arrived later would have left less), less every request of ours still in flight, which it
      // may or may not have counted: never more than is left, and exact once none is in flight.
      // Subtracting what was sent after the answered request instead counted twice the requests
      // that overtook it, and kept the least of those: a tenth of a 1000/5 window went unused.
      const budget = known.budget;
      if (!budget || report.resetAt > budget.resetAt) {
        known.budget = { reported: report.remaining, remaining: report.remaining - this.#inFlight, resetAt: report.resetAt };
      } else if (report.resetAt === budget.resetAt) {
        budget.reported = Math.min(budget.reported, report.remaining);
        budget.remaining = budget.reported - this.#inFlight;
      }
    });
    this.#changed();
  }

  /**
   * The windows an earlier run was told about (the local store): pacing starts from them, and
   * without the single probe, since they already say what the first request may carry.
   */
  remember(reported: readonly ReportedWindow[]): void {
    // Windows no pacing can keep are learnt again from the service, whose answer says what is wrong.
    if (reported.length === 0 || !reported.every(paceable)) return;
    this.#calibrated = true;
    this.#stated = true;
    this.#windows = reported.map((report) => ({
      periodMs: report.periodSeconds * 1000,
      limit: report.limit,
      budget: { remaining: report.remaining, resetAt: report.resetAt, reported: report.remaining },
    }));
    this.#changed();
  }

  /**
   * Several processes pace one account together: every grant is also reserved in `pacer` (the
   * store's, or one in memory), and what the service reports is shared through it.
   */
  shareWith(pacer: SharedPacer): void {
    this.#pacing = new SharedPacing(pacer, this.#policy, (error) => {
      this.#fatal ??= { error };
      this.#changed();
    });
    this.#changed();
  }

  /** After a 429: nobody sends before `until` (epoch ms; the retry policy has added its margin). */
  pauseUntil(until: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, until);
    for (const window of this.#windows) {
      if (window.budget && window.budget.resetAt <= until) window.budget.remaining = 0;
    }
    this.#changed();
  }

  /** What this job knows of itself at `now`, as its pacing reads it. */
  #view(now: number): JobView {
    return {
      now,
      windows: this.#windows.map((window) => ({ ...window, marginMs: this.#margin(window) })),
      inFlight: this.#outstanding,
      lastSentAt: this.#lastSentAt,
      sentIn: (periodMs, resetAt) => this.#sentIn({ periodMs, resetAt }, now),
    };
  }

  #margin(window: Window): number {
    return marginAfterReset(window.periodMs, this.#policy);
  }

  /** Our sends that count in `window` at `now` (window-rules.ts), those in flight included. */
  #sentIn(window: WindowSpan, now: number): number {
    return sentIn(this.#sent, window, now, this.#policy);
  }

  /** Something a waiting grant depends on changed: look again now rather than at the end of the wait. */
  #changed(): void {
    this.#queue.changed();
  }

  /**
   * What the head of the queue gets now: what every window leaves this job (the service's count of
   * it, or our own sends before it has counted), as far as its pacing grants it; or when to ask again.
   */
  async #decide({ components, unit }: Ask, demand: number): Promise<PaceDecision> {
    if (this.#fatal) throw this.#fatal.error;
    // The first request is out and its headers will describe the windows: wait for them.
    if (!this.#calibrated && this.#outstanding > 0) return { afterAnswer: true };
    if (this.#calibrated && unit > this.largestRequest) throw new ItemTooWideError(unit, this.largestRequest);
    const now = this.#clock.now();
    this.#prune(now);
    const most = unit < components ? Math.min(components, Math.max(unit, Math.floor(this.largestRequest / unit) * unit)) : components;
    // A request that can be split goes in whole units as soon as one fits; one that cannot waits until all of it fits.
    const step = unit < most ? unit : most;
    let room = most;
    let wait: PaceDecision & { readyAt: number } = { readyAt: this.#pausedUntil };
    for (const window of this.#windows) {
      const admits = this.#admits(window, step, now);
      room = Math.min(room, admits.room);
      if (admits.readyAt > wait.readyAt) wait = { readyAt: admits.readyAt, ...(window.budget ? { resetAt: window.budget.resetAt } : {}) };
    }
    if (wait.readyAt > now) return wait;
    const wanted = step === most ? most : Math.floor(room / unit) * unit;
    return this.#pacing.reserve({ wanted, unit: step, demand }, this.#view(now));
  }

  /**
   * Forgets sends no window can count any more. A reported budget whose window has reset rolls on
   * to the next window: the new one starts full, less what we sent since the reset (and just
   * before it: window-rules.ts countsIn).
   */
  #prune(now: number): void {
    const longest = longestPeriodMs(this.#windows);
    const kept = longest + Math.max(this.#policy.transitMs, marginAfterReset(longest, this.#policy));
    while (this.#sent.length > 0 && this.#sent[0]!.at + kept <= now) this.#sent.shift();
    for (const window of this.#windows) {
      const budget = window.budget;
      if (!budget || budget.resetAt > now) continue;
      const resetAt = rollForward(budget.resetAt, window.periodMs, now);
      window.budget = {
        remaining: window.limit - this.#sentIn({ periodMs: window.periodMs, resetAt }, now),
        resetAt,
        reported: window.limit,
      };
    }
  }

  /**
   * What `window` lets us send now (room) and when it lets `step` through (readyAt: now when
   * room >= step). With the service's count: what it leaves us now, else its reset (plus a margin
   * for clock skew and transit); without one (before the first answer, or a service that sends no
   * headers), when enough of our own sends have aged out of the period.
   */
  #admits(window: Window, step: number, now: number): { room: number; readyAt: number } {
    // A request larger than the whole window can only ever go alone.
    const needed = Math.min(step, window.limit);
    const budget = window.budget;
    if (!budget) {
      const room = window.limit - this.#sentIn({ periodMs: window.periodMs }, now);
      return { room, readyAt: room >= needed ? now : this.#agedOut(window, needed, now) };
    }
    if (budget.remaining >= needed) return { room: budget.remaining, readyAt: now };
    // Spent: until its reset and margin. Refused (429) and told to wait for this reset: the retry
    // policy's time governs. It comes a little before other jobs' margin, so a job the others
    // crowded out is counted, and seen.
    return {
      room: budget.remaining,
      readyAt: this.#pausedUntil >= budget.resetAt ? budget.resetAt : budget.resetAt + this.#margin(window),
    };
  }

  /** Without the service's count: when enough of our own sends age out of the period for `needed` more. */
  #agedOut(window: Window, needed: number, now: number): number {
    const span: WindowSpan = { periodMs: window.periodMs };
    let total = this.#sentIn(span, now);
    let readyAt = now;
    for (const entry of this.#sent) {
      if (total + needed <= window.limit) break;
      if (!countsIn(entry, span, now, this.#policy)) continue;
      total -= entry.components;
      readyAt = Math.max(readyAt, entry.at + window.periodMs + this.#margin(window));
    }
    return readyAt;
  }

  #reserve(components: number, now: number, shared?: number): Reservation {
    this.#lastSentAt = now;
    this.#sequence += components;
    this.#soleSequence = this.#outstanding === 0 ? this.#sequence : -1;
    this.#outstanding += 1;
    this.#inFlight += components;
    this.#sent.push({ at: now, components, sequence: this.#sequence });
    for (const window of this.#windows) {
      if (window.budget) window.budget.remaining -= components;
    }
    return { components, sequence: this.#sequence, ...(shared !== undefined ? { shared } : {}) };
  }
}
