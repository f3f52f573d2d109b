import { SYSTEM_CLOCK, type Clock } from './clock.js';
import type { ReportedWindow } from './rate-headers.js';
import { OtherClients, scramblePaceMs, startGraceMs, type CountedWindow, type OtherClientsPolicy } from './other-clients.js';
import type { SharedPacer } from './shared-pacer.js';
import { ServiceClock } from './service-clock.js';
import { ItemTooWideError, QuotaWaitError } from '../errors/index.js';

/** Pacing rules; those for other clients of the account without a shared pacer (other machines) are OtherClientsPolicy's. */
export interface ThrottlePolicy extends OtherClientsPolicy {
  /** Components per minute assumed until the service's headers describe the real windows. */
  initialPerMinute: number;
  /**
   * The most the first request may carry, before any response has described the windows: small,
   * so that a window tighter than a batch (20 a second against batches of 100) is learnt from a
   * request it admits, not from a 429.
   */
  firstRequestComponents: number;
  /** Slack added to every window, as a fraction of its length (bounded below by minMarginMs): clock skew and transit jitter. */
  marginFraction: number;
  minMarginMs: number;
  /** How long a request may take to reach the service: one reserved this long before a reset may count in the next window. */
  transitMs: number;
  /**
   * The longest wait for the rate limit worth sitting through, in ms. A longer one (a daily quota
   * spent) rejects the waiting request with QuotaWaitError instead of sleeping for hours.
   */
  maxWaitMs: number;
}

/** The longest timer Node can set (about 24.8 days): any wait is capped below it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = {
  initialPerMinute: 250,
  firstRequestComponents: 10,
  marginFraction: 0.005,
  minMarginMs: 50,
  transitMs: 200,
  maxWaitMs: 15 * 60_000,
  assumedClients: 16,
  fairPart: 0.1,
  startGraceMs: 1_000,
  scrambleRounds: 40,
};

export interface AcquireOptions {
  /** The components of one item: a grant may be smaller than asked, in whole units. */
  unit?: number;
  /** Lower goes first: the input row of the request's first item, so earlier rows are never overtaken. */
  priority?: number;
  /** Aborting rejects the wait with the signal's reason (a stopping run sends nothing new). */
  signal?: AbortSignal;
}

interface Waiter {
  /** Components still to grant. */
  components: number;
  unit: number;
  priority: number;
  arrival: number;
  /** Stay queued, at the same place, until every component is granted (grants()); else leave after one. */
  untilWhole: boolean;
  deliver: (reservation: Reservation) => void;
  fail: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

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

interface Window {
  periodMs: number;
  limit: number;
  /**
   * What we sent inside the last period, oldest first: a sliding window never exceeds any fixed one.
   * `countedBy`: the reset of the window the service counted it in, once its answer said so.
   */
  sent: { at: number; components: number; sequence: number; countedBy?: number }[];
  sentTotal: number;
  /**
   * What is left of the window ending resetAt: the least the service said remains (`reported`;
   * its answers arrive in any order, and its count only grows), less what we have in flight.
   */
  budget?: { remaining: number; resetAt: number; reported: number };
}

/**
 * Paces components across every window the service reports. Two sources of truth are combined:
 * our own sliding log of sends (exact for what we do) and the service's X-RateLimit-* headers
 * (which also see other clients of the same account and earlier runs). Requests are granted in
 * priority order (the earliest input row first, then first come): what a window admits goes to
 * the rows the ordered output is waiting for, so paid answers never sit behind later rows. Until
 * the first response arrives only one request is let out, so that a quota already spent by an
 * earlier run costs one 429 at most, not a burst of them.
 */
export class RateLimiter {
  readonly #policy: ThrottlePolicy;
  readonly #clock: Clock;
  #windows: Window[];
  #sequence = 0;
  #pausedUntil = 0;
  #calibrated = false;
  #outstanding = 0;
  /** Components reserved and not yet answered (observe). */
  #inFlight = 0;
  /** When the latest grant was made: past a window's shared part, the next waits its turn (scramblePaceMs). */
  #lastSentAt = -Infinity;
  /** The reservation made while none was in flight, and none since: its answer closes a round (OtherClients.observeRound). */
  #soleSequence = -1;
  /** When the latest answer came (without a shared pacer): the start of the round the next one closes. */
  #answeredAt = -Infinity;
  /** Requests waiting for a grant, lowest priority first (then first come). */
  #waiters: Waiter[] = [];
  #arrivals = 0;
  #pumping = false;
  /** Aborted to cut the pump's current wait short: the head of the queue or the windows changed. */
  #wake: AbortController | undefined;
  #waitedMs = 0;
  #waitingUntil = 0;
  #shared: SharedPacer | undefined;
  /** Without a shared pacer: other clients of the account, as the service's counts show them. */
  readonly #others: OtherClients;
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
    this.#others = new OtherClients(policy);
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
    this.#prune(window, this.#clock.now());
    const used = window.budget ? window.limit - window.budget.remaining : window.sentTotal;
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
    return new Promise<Reservation>((resolve, reject) => this.#enqueue(components, options, false, resolve, reject));
  }

  /**
   * All of `components`, granted in parts as the windows admit them. The request keeps its place
   * in the queue between parts: the rest of a batch whose first part went out (the probe, or what
   * a window had left) is served before any later row, without having to ask again.
   */
  async *grants(components: number, options: AcquireOptions = {}): AsyncGenerator<Reservation> {
    const ready: Reservation[] = [];
    let failure: { error: unknown } | undefined;
    let notify: (() => void) | undefined;
    const wakeUp = () => {
      notify?.();
      notify = undefined;
    };
    this.#enqueue(
      components,
      options,
      true,
      (reservation) => {
        ready.push(reservation);
        wakeUp();
      },
      (error) => {
        failure = { error };
        wakeUp();
      },
    );
    for (let granted = 0; granted < components;) {
      if (ready.length === 0 && !failure) await new Promise<void>((resolve) => (notify = resolve));
      const reservation = ready.shift();
      if (reservation) {
        granted += reservation.components;
        yield reservation;
      } else if (failure) {
        throw failure.error;
      }
    }
  }

  #enqueue(
    components: number,
    options: AcquireOptions,
    untilWhole: boolean,
    deliver: (reservation: Reservation) => void,
    fail: (error: unknown) => void,
  ): void {
    const { signal } = options;
    if (signal?.aborted) {
      fail(signal.reason);
      return;
    }
    const waiter: Waiter = {
      components,
      unit: options.unit ?? components,
      priority: options.priority ?? 0,
      arrival: this.#arrivals++,
      untilWhole,
      deliver,
      fail,
      signal,
      onAbort: () => {
        this.#remove(waiter);
        fail(signal!.reason);
        this.#changed();
      },
    };
    signal?.addEventListener('abort', waiter.onAbort, { once: true });
    const at = this.#waiters.findIndex((other) => other.priority > waiter.priority);
    if (at < 0) this.#waiters.push(waiter);
    else this.#waiters.splice(at, 0, waiter);
    if (at === 0) this.#changed();
    void this.#pump();
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
    if (reservation.shared !== undefined) this.#shared?.refund(reservation.shared, this.#clock.now());
    this.#changed();
  }

  /** After a response (or a failure without one): learn the windows and the service's remaining counts. */
  observe(reservation: Reservation, reported: readonly ReportedWindow[]): void {
    this.#outstanding = Math.max(0, this.#outstanding - 1);
    this.#inFlight = Math.max(0, this.#inFlight - reservation.components);
    this.#calibrated = true;
    const now = this.#clock.now();
    // Even an answer without windows tells the others sharing the pacer that the probe is answered.
    this.#shared?.report(reservation.shared, reported, now);
    if (reported.length === 0) {
      this.#changed();
      return;
    }
    this.#stated = true;
    this.#windows = reported.map((report) => {
      const known =
        this.#windows.find((w) => w.periodMs === report.periodSeconds * 1000) ??
        this.#window(report.periodSeconds, report.limit, this.#windows[0]);
      known.limit = report.limit;
      return known;
    });
    // Counted against the windows as the service states them (the first answer replaces --rate's guess).
    if (!this.#shared) {
      this.#countOthers(reported, now);
      if (reservation.sequence === this.#soleSequence) this.#closeRound(reservation, reported, now);
      this.#answeredAt = now;
    }
    reported.forEach((report, i) => {
      const known = this.#windows[i]!;
      // Entries may be shared with the log a window was learnt from (#window): replaced, not changed.
      const at = known.sent.findIndex((entry) => entry.sequence === reservation.sequence);
      if (at >= 0) known.sent[at] = { ...known.sent[at]!, countedBy: report.resetAt };
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
    if (reported.length === 0) return;
    this.#calibrated = true;
    this.#stated = true;
    this.#windows = reported.map((report) => ({
      ...this.#window(report.periodSeconds, report.limit),
      budget: { remaining: report.remaining, resetAt: report.resetAt, reported: report.remaining },
    }));
    this.#changed();
  }

  /**
   * Several processes on this machine pace one account together: every grant is also reserved in
   * `pacer` (the local store), and what the service reports is shared through it.
   */
  shareWith(pacer: SharedPacer): void {
    this.#shared = pacer;
    pacer.join(this.#clock.now());
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

  /** The service's count of each window against our own sends in it: what others sent. */
  #countOthers(reported: readonly ReportedWindow[], now: number): void {
    const counts = reported.flatMap((report) => {
      const window = this.#windows.find((w) => w.periodMs === report.periodSeconds * 1000);
      if (!window || report.resetAt <= now) return [];
      return [
        {
          periodMs: window.periodMs,
          resetAt: report.resetAt,
          limit: report.limit,
          counted: report.limit - report.remaining,
          own: this.#sentIn(window, report.resetAt),
        },
      ];
    });
    this.#others.observe(counts, this.#windows, now);
  }

  /**
   * The answer to a request that was alone in flight: what the service counted since our previous
   * answer, beyond the request itself, was sent by others in the round. Only when that answer was
   * in the same windows, past their shared parts: the shares sent at a reset are no round's.
   */
  #closeRound(reservation: Reservation, reported: readonly ReportedWindow[], now: number): void {
    const inRound = reported.every((report, i) => {
      const window = this.#windows[i]!;
      const budget = window.budget;
      return budget?.resetAt === report.resetAt && this.#answeredAt >= this.#fairUntil(window, budget, now);
    });
    if (!inRound) return;
    const counted = this.#windows[0]!.budget!.reported - reported[0]!.remaining;
    this.#others.observeRound(counted - reservation.components, reservation.components, this.#windows, now);
  }

  /** Whether others share the account and no pacer (seen, or assumed at the start). */
  #othersSeen(now: number): boolean {
    return !this.#shared && this.#others.state(this.#windows, now) !== 'none';
  }

  /** A window newly learnt starts with the log of what we sent (every window logs every send). */
  #window(periodSeconds: number, limit: number, logged?: Window): Window {
    const sent = logged ? [...logged.sent] : [];
    return { periodMs: periodSeconds * 1000, limit, sent, sentTotal: sent.reduce((sum, entry) => sum + entry.components, 0) };
  }

  #margin(window: Window): number {
    return Math.max(this.#policy.minMarginMs, window.periodMs * this.#policy.marginFraction);
  }

  #remove(waiter: Waiter): void {
    const at = this.#waiters.indexOf(waiter);
    if (at >= 0) this.#waiters.splice(at, 1);
    waiter.signal?.removeEventListener('abort', waiter.onAbort);
  }

  /** Something a waiting grant depends on changed: look again now rather than at the end of the wait. */
  #changed(): void {
    this.#wake?.abort();
  }

  /** Serves the queue's head whenever the windows admit it; one pump runs at a time. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#waiters.length > 0) {
        const head = this.#waiters[0]!;
        let decision: { grant?: number; shared?: number; readyAt?: number };
        try {
          decision = this.#decide(head);
        } catch (error) {
          this.#remove(head);
          head.fail(error);
          continue;
        }
        if (decision.grant !== undefined) {
          head.components -= decision.grant;
          if (!head.untilWhole || head.components <= 0) this.#remove(head);
          this.#waitingUntil = 0;
          head.deliver(this.#reserve(decision.grant, this.#clock.now(), decision.shared));
          continue;
        }
        const wake = new AbortController();
        this.#wake = wake;
        if (decision.readyAt === undefined) {
          // The first request is out and its headers will describe the windows: wait for them.
          await new Promise((resolve) => wake.signal.addEventListener('abort', resolve, { once: true }));
          continue;
        }
        const started = this.#clock.now();
        const wait = decision.readyAt - started;
        if (wait > this.#policy.maxWaitMs) {
          this.#remove(head);
          head.fail(new QuotaWaitError(decision.readyAt, this.#policy.maxWaitMs));
          continue;
        }
        this.#waitingUntil = decision.readyAt;
        await this.#clock.sleep(Math.min(wait, MAX_TIMER_MS), wake.signal).catch(() => undefined);
        this.#waitedMs += Math.max(0, this.#clock.now() - started);
      }
    } finally {
      this.#pumping = false;
      this.#waitingUntil = 0;
      this.#wake = undefined;
    }
  }

  /** What the head of the queue gets now: a grant, a time to wait for, or neither (await the first answer). */
  #decide({ components, unit }: Waiter): { grant?: number; shared?: number; readyAt?: number } {
    if (!this.#calibrated && this.#outstanding > 0) return {};
    if (this.#calibrated && unit > this.largestRequest) throw new ItemTooWideError(unit, this.largestRequest);
    const now = this.#clock.now();
    if (this.#scrambling(now)) {
      if (this.#outstanding > 0) return {};
      const paced = this.#lastSentAt + scramblePaceMs(this.#policy, this.#windows);
      if (this.#others.competing && paced > now) return { readyAt: paced };
    }
    const most = unit < components ? Math.min(components, Math.max(unit, Math.floor(this.largestRequest / unit) * unit)) : components;
    // A request that can be split goes in whole units as soon as one fits; one that cannot waits until all of it fits.
    const step = unit < most ? unit : most;
    let room = most;
    let readyAt = this.#pausedUntil;
    for (const window of this.#windows) {
      const admits = this.#admits(window, step, now);
      room = Math.min(room, admits.room);
      readyAt = Math.max(readyAt, admits.readyAt);
    }
    if (readyAt > now) return { readyAt };
    return step === most ? this.#share(most, most, now) : this.#share(Math.floor(room / unit) * unit, unit, now);
  }

  /** What the windows admit for this process is also reserved in the shared pacer, which may grant less, or nothing yet. */
  #share(components: number, unit: number, now: number): { grant?: number; shared?: number; readyAt?: number } {
    if (!this.#shared) return { grant: components };
    const answer = this.#shared.reserve({
      wanted: components,
      demand: this.#waiters.reduce((sum, waiter) => sum + waiter.components, 0),
      unit,
      windows: this.#windows.map((w) => ({ periodMs: w.periodMs, limit: w.limit, resetAt: w.budget?.resetAt, marginMs: this.#margin(w) })),
      now,
      transitMs: this.#policy.transitMs,
      start: {
        graceMs: startGraceMs(this.#policy, this.#windows),
        clients: this.#policy.assumedClients,
      },
    });
    return 'id' in answer ? { grant: answer.components, shared: answer.id } : { readyAt: answer.retryAt };
  }

  /**
   * Forgets sends older than the window. A reported budget whose window has reset rolls on to the
   * next window: the service's windows are fixed (each resets at the time its headers state), so
   * the new one starts full, less what we sent since the reset (and just before it: a request
   * reserved a moment before the reset may reach the service after it).
   */
  #prune(window: Window, now: number): void {
    const span = window.periodMs + this.#margin(window);
    while (window.sent.length > 0 && window.sent[0]!.at + span <= now) window.sentTotal -= window.sent.shift()!.components;
    const budget = window.budget;
    if (!budget || budget.resetAt > now) return;
    const periods = Math.floor((now - budget.resetAt) / window.periodMs) + 1;
    const resetAt = budget.resetAt + periods * window.periodMs;
    window.budget = { remaining: window.limit - this.#sentIn(window, resetAt), resetAt, reported: window.limit };
  }

  /**
   * Our sends that count in the window ending `resetAt`, those in flight included, and those
   * reserved a moment before it began (one may reach the service after the reset), unless its
   * answer said it was counted in the window before: counted twice, a start window's last send
   * emptied the next window.
   */
  #sentIn(window: Window, resetAt: number): number {
    const from = resetAt - window.periodMs - this.#policy.transitMs;
    return window.sent.reduce(
      (sum, entry) => (entry.at >= from && (entry.countedBy ?? resetAt) >= resetAt ? sum + entry.components : sum),
      0,
    );
  }

  /**
   * What `window` lets us send now (room) and when it lets `step` through (readyAt: now when
   * room >= step). With the service's count: what it leaves us now, else its reset (plus a margin
   * for clock skew and transit); without one (before the first answer, or a service that sends no
   * headers), when enough of our own sends have aged out of the period.
   */
  #admits(window: Window, step: number, now: number): { room: number; readyAt: number } {
    this.#prune(window, now);
    // A request larger than the whole window can only ever go alone.
    const needed = Math.min(step, window.limit);
    const budget = window.budget;
    if (!budget) {
      const room = window.limit - window.sentTotal;
      return { room, readyAt: room >= needed ? now : this.#agedOut(window, needed, now) };
    }
    const room = this.#budgetRoom(window, budget, now, needed);
    if (room >= needed) return { room, readyAt: now };
    if (budget.remaining < needed) {
      // Refused (429) and told to wait for this reset: the retry policy's time governs. It comes
      // a little before other jobs' margin, so a job the others crowded out is counted, and seen.
      return { room, readyAt: this.#pausedUntil >= budget.resetAt ? budget.resetAt : budget.resetAt + this.#margin(window) };
    }
    // Held back by the others: until the window's shared first part ends (a start grace may last
    // past the reset, which brings a new share); past it, until the reset.
    const fairUntil = this.#fairUntil(window, budget, now);
    const nextWindow = budget.resetAt + this.#margin(window);
    return { room, readyAt: fairUntil > now ? Math.min(fairUntil, nextWindow) : nextWindow };
  }

  /** What the service's count leaves us in `window`: shared with other clients while they are seen (OtherClients). */
  #budgetRoom(window: Window, budget: NonNullable<Window['budget']>, now: number, unit: number): number {
    if (this.#shared) return budget.remaining;
    return this.#others.room(this.#counted(window, budget), () => this.#sentIn(window, budget.resetAt), unit, this.#windows, now);
  }

  #counted(window: Window, budget: NonNullable<Window['budget']>): CountedWindow {
    return { periodMs: window.periodMs, limit: window.limit, resetAt: budget.resetAt, remaining: budget.remaining };
  }

  /**
   * Past a window's shared first part while others are seen, what is left goes to whoever asks: one
   * request at a time, each sized by the latest answer, since every job's view of the window is as
   * old as its last answer and several jobs sizing requests by old views overrun it together.
   */
  #scrambling(now: number): boolean {
    if (!this.#othersSeen(now)) return false;
    return this.#windows.some((window) => window.budget !== undefined && now >= this.#fairUntil(window, window.budget, now));
  }

  /** The end of the window's shared first part while others are seen; else now (nothing is held back). */
  #fairUntil(window: Window, budget: NonNullable<Window['budget']>, now: number): number {
    return this.#shared ? now : this.#others.fairUntil(this.#counted(window, budget), this.#windows, now);
  }

  /** Without the service's count: when enough of our own sends age out of the period for `needed` more. */
  #agedOut(window: Window, needed: number, now: number): number {
    const span = window.periodMs + this.#margin(window);
    let readyAt = now;
    let total = window.sentTotal;
    for (const entry of window.sent) {
      if (total + needed <= window.limit) break;
      total -= entry.components;
      readyAt = Math.max(readyAt, entry.at + span);
    }
    return readyAt;
  }

  #reserve(components: number, now: number, shared?: number): Reservation {
    this.#lastSentAt = now;
    this.#sequence += components;
    this.#soleSequence = this.#outstanding === 0 ? this.#sequence : -1;
    this.#outstanding += 1;
    this.#inFlight += components;
    for (const window of this.#windows) {
      window.sent.push({ at: now, components, sequence: this.#sequence });
      window.sentTotal += components;
      if (window.budget) window.budget.remaining -= components;
    }
    return { components, sequence: this.#sequence, ...(shared !== undefined ? { shared } : {}) };
  }
}
