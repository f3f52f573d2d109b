import type { JobView, JobWindow, PaceAsk, PaceDecision, PacedGrant, Pacing } from './pacing.js';
import type { ThrottlePolicy } from '../policy/policy.js';
import type { ReportedWindow } from './rate-headers.js';
import { longestPeriodMs, shortestPeriodMs, startGraceIn, startGraceMs, startShare } from './window-rules.js';

/** The service's count of one window, `own` being every send of ours in it (those in flight included). */
interface WindowCount {
  periodMs: number;
  resetAt: number;
  limit: number;
  counted: number;
  own: number;
}

type Budget = NonNullable<JobWindow['budget']>;

/** Whether other clients use the account: seen in its counts lately; assumed (none seen since the start); or none. */
type Others = 'seen' | 'assumed' | 'none';

/**
 * Pacing without a shared store: other clients of the account (jobs on other machines, or run with
 * --no-store) are known only through the service's counts. What it counted in a window beyond our
 * own sends was sent by them (X-RateLimit-Remaining is the truth about what others used). While
 * they are seen, and for a start grace while they may be starting too, every job applies the same
 * rules to each window (ThrottlePolicy: assumedClients, sharedPart, scrambleRounds): its start
 * share at the reset, then what is left in turns, a slice at a time. A job the others crowd out is
 * refused once and counted at the next reset (the retry policy brings it back just before them),
 * so they see it too.
 */
export class OtherClients implements Pacing {
  readonly #policy: ThrottlePolicy;
  #seenAt = -Infinity;
  /** Clients counted in rounds (#closeRound), the latest last. */
  #rounds: { at: number; clients: number }[] = [];
  #firstAnswerAt = -Infinity;
  /** The latest answer showed others' sends in the shortest window: they take turns with us for what is left of it. */
  #competing = false;
  /** An answer received after the start grace showed no other client. */
  #aloneConfirmed = false;
  /** When the latest answer stating windows came: the start of the round the next one closes. */
  #answeredAt = -Infinity;

  constructor(policy: ThrottlePolicy) {
    this.#policy = policy;
  }

  reserve(ask: PaceAsk, job: JobView): Promise<PaceDecision> {
    return Promise.resolve(this.#decide(ask, job));
  }

  answered(grant: PacedGrant, reported: readonly ReportedWindow[], job: JobView, alone: boolean): void {
    if (reported.length === 0) return;
    const { now, windows } = job;
    // Every send of ours in the window, those in flight included (they may have arrived first), so that others are never overestimated.
    const counts = reported
      .filter((report) => report.resetAt > now)
      .map((report) => {
        const periodMs = report.periodSeconds * 1000;
        return {
          periodMs,
          resetAt: report.resetAt,
          limit: report.limit,
          counted: report.limit - report.remaining,
          own: job.sentIn(periodMs, report.resetAt),
        };
      });
    this.#observe(counts, windows, now);
    if (alone) this.#closeRound(grant, reported, windows, now);
    this.#answeredAt = now;
  }

  refunded(): void {
    // The service's next count shows what it counted: nothing is kept here of a single request.
  }

  #decide({ wanted, unit }: PaceAsk, job: JobView): PaceDecision {
    const { now, windows } = job;
    if (this.#scrambling(windows, now)) {
      // Past a window's shared part each job's view of it is as old as its last answer, and jobs
      // sizing requests by old views overrun it together: one request at a time, sized by the latest.
      if (job.inFlight > 0) return { afterAnswer: true };
      const paced = job.lastSentAt + shortestPeriodMs(windows) / this.#policy.scrambleRounds;
      if (this.#competing && paced > now) return { readyAt: paced };
    }
    let room = wanted;
    let readyAt = now;
    for (const window of windows) {
      const { budget } = window;
      if (!budget) continue;
      // A request larger than the whole window can only ever go alone.
      const needed = Math.min(unit, window.limit);
      const windowRoom = this.#room(window, budget, () => job.sentIn(window.periodMs, budget.resetAt), needed, windows, now);
      if (windowRoom < needed) readyAt = Math.max(readyAt, this.#heldBackUntil(window, budget, windows, now));
      room = Math.min(room, windowRoom);
    }
    if (readyAt > now) return { readyAt };
    return { grant: unit === wanted ? wanted : Math.floor(room / unit) * unit };
  }

  /**
   * An answer's counts, one per window. Others are seen when a count holds more than our own sends;
   * a job is confirmed alone by a count from at least its start grace into a window, after its own
   * grace: the jobs started with it send their shares at the reset, so an earlier count may not
   * hold them yet.
   */
  #observe(counts: readonly WindowCount[], windows: readonly JobWindow[], now: number): void {
    if (this.#firstAnswerAt === -Infinity) this.#firstAnswerAt = now;
    if (counts.some((count) => this.#othersIn(count))) this.#seenAt = now;
    else if (now >= this.#graceUntil(windows) && this.#holdsStarters(counts, now)) this.#aloneConfirmed = true;
    const shortest = counts.reduce<WindowCount | undefined>((a, b) => (a && a.periodMs <= b.periodMs ? a : b), undefined);
    this.#competing = shortest !== undefined && this.#othersIn(shortest);
  }

  /** A count holds others' sends beyond a little slack: a send of ours may be counted in the window before as well. */
  #othersIn({ limit, counted, own }: WindowCount): boolean {
    return counted - own > Math.max(1, limit * this.#policy.othersSlack);
  }

  /**
   * The answer to a request that was alone in flight: what the service counted since our previous
   * answer, beyond the request itself, was sent by others in the round, provided that answer was in
   * the same windows, past their shared parts (the shares sent at a reset are no round's). Past the
   * shared part every job sends one request a round, sized as ours by the same rule, so the
   * others' components over ours count the others who sent; every job sees the same rounds,
   * whatever its own share. Not in a job's first (shortest) period: jobs started with it are still joining.
   */
  #closeRound(grant: PacedGrant, reported: readonly ReportedWindow[], windows: readonly JobWindow[], now: number): void {
    const inRound = reported.every((report, i) => {
      const window = windows[i]!;
      const budget = window.budget;
      return budget?.resetAt === report.resetAt && this.#answeredAt >= this.#fairUntil(window, budget, windows, now);
    });
    if (!inRound || now < this.#firstAnswerAt + shortestPeriodMs(windows)) return;
    const othersCounted = windows[0]!.budget!.reported - reported[0]!.remaining - grant.components;
    const kept = this.#policy.seenForPeriods * longestPeriodMs(windows);
    this.#rounds = this.#rounds.filter((round) => now - round.at < kept);
    const clients = 1 + Math.ceil(Math.max(0, othersCounted) / grant.components);
    this.#rounds.push({ at: now, clients: Math.min(this.#policy.assumedClients, clients) });
  }

  /** The most clients counted in a round lately; assumedClients when none was counted. */
  #clientsCounted(windows: readonly JobWindow[], now: number): number {
    const kept = this.#policy.seenForPeriods * longestPeriodMs(windows);
    const recent = this.#rounds.filter((round) => now - round.at < kept);
    return recent.length === 0 ? this.#policy.assumedClients : Math.max(...recent.map((round) => round.clients));
  }

  #others(windows: readonly JobWindow[], now: number): Others {
    if (now - this.#seenAt < this.#policy.seenForPeriods * longestPeriodMs(windows)) return 'seen';
    return this.#aloneConfirmed ? 'none' : 'assumed';
  }

  /** The end of `window`'s shared first part while others are seen or assumed; else now (nothing is held back). */
  #fairUntil(window: JobWindow, budget: Budget, windows: readonly JobWindow[], now: number): number {
    const others = this.#others(windows, now);
    if (others === 'none') return now;
    // None seen yet: the share holds for the start grace only; then a unit asks whether anyone is
    // there (room), rather than the job idling to the end of a 60 s window's shared part.
    if (others === 'assumed') return this.#graceUntil(windows);
    return Math.max(budget.resetAt - window.periodMs * (1 - this.#policy.sharedPart), this.#graceUntil(windows));
  }

  /**
   * Held back by the others: until the window's shared first part ends (a start grace may last past
   * the reset, which brings a new share); past it, until the reset.
   */
  #heldBackUntil(window: JobWindow, budget: Budget, windows: readonly JobWindow[], now: number): number {
    const fairUntil = this.#fairUntil(window, budget, windows, now);
    const nextWindow = budget.resetAt + window.marginMs;
    return fairUntil > now ? Math.min(fairUntil, nextWindow) : nextWindow;
  }

  /** Past a window's shared first part while others are seen or assumed: what is left goes to whoever asks. */
  #scrambling(windows: readonly JobWindow[], now: number): boolean {
    if (this.#others(windows, now) === 'none') return false;
    return windows.some((window) => window.budget !== undefined && now >= this.#fairUntil(window, window.budget, windows, now));
  }

  /**
   * What `window` leaves us, `ours` saying what we sent in it (asked only in the shared part): all
   * that is left when we are alone; in the shared first part, our start share; after it, a slice of
   * what is left, down to a unit. The last few units of a window (fewer than the clients in a
   * round) go unused: taking them is a race.
   */
  #room(window: JobWindow, budget: Budget, ours: () => number, unit: number, windows: readonly JobWindow[], now: number): number {
    const others = this.#others(windows, now);
    if (others === 'none') return budget.remaining;
    if (now < this.#fairUntil(window, budget, windows, now)) {
      return Math.min(budget.remaining, startShare(window.limit, this.#policy) - ours());
    }
    const slice = Math.floor(budget.remaining / this.#policy.assumedClients / unit) * unit;
    if (slice > 0 || budget.remaining < unit) return slice;
    // Others only assumed (none seen since the start): a unit, whose answer says whether anyone is
    // there. Seen: a unit while as many are left as clients were counted in a round; each sends one
    // a round, so however old our view, what they sent since still leaves ours room.
    return others === 'assumed' || budget.remaining >= this.#clientsCounted(windows, now) * unit ? unit : 0;
  }

  /**
   * Whether these counts would hold the requests of jobs that started with us (within the start
   * grace): once a window has reset, they send their shares at its reset and a margin, so a count
   * from the window's first moments may not hold them yet. Counted from the window's start: its
   * start grace (a second of a 60 s window, a tenth of a 2 s one).
   */
  #holdsStarters(counts: readonly WindowCount[], now: number): boolean {
    return counts.every((count) => now >= count.resetAt - count.periodMs + startGraceIn(count.periodMs, this.#policy));
  }

  #graceUntil(windows: readonly JobWindow[]): number {
    return this.#firstAnswerAt + startGraceMs(this.#policy, windows);
  }
}
