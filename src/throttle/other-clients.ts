/** The part of the throttle policy for other clients of the account that share no pacer with us (other machines). */
export interface OtherClientsPolicy {
  /**
   * While the service's counts show other clients, a window's share and its slices are divided
   * among this many. Every job assumes the same number, whatever its own view: a number measured
   * from its own part of the counts is lowest for the job that took most, and keeps it ahead, and
   * shares sized by different numbers drift apart. Safe for about half as many jobs; more jobs cost
   * 429s, fewer cost a few round trips per window.
   */
  assumedClients: number;
  /**
   * While others are seen, the first part of each window (this fraction of it) is shared: each job
   * takes at most the window divided among assumedClients and one more, all at once at the reset.
   * After it, what is left goes to whoever asks, a slice (what is left over assumedClients) and
   * one request at a time, so that jobs sizing requests by views as old as their last answers
   * still fit together.
   */
  fairPart: number;
  /**
   * For this long after its first answer (at most the shortest window's shared part) a job shares
   * as if others were seen, and then until an answer from at least that long into a window shows none: a
   * crontab starts several jobs at once, and the first one answered would otherwise empty the
   * window before the others' first requests arrive, and keep a window's lead. A job alone loses
   * this long, and a round trip, once. A job started later than this is refused once (its first
   * request, uncounted, is not seen by the others) and comes back at the reset, before them.
   */
  startGraceMs: number;
  /**
   * Past the shared first part, while others have sent in the shortest window, a job sends at most
   * one request per this fraction of it, so that what is left is taken in turns by every job
   * there, not by whichever asked first or answers fastest.
   */
  scrambleRounds: number;
}

/** One window as the limiter knows it, with the service's count of it. */
export interface CountedWindow {
  periodMs: number;
  limit: number;
  /** When the current fixed window ends (epoch ms). */
  resetAt: number;
  /** What the service's count leaves, less what we sent since (others may have sent too). */
  remaining: number;
}

/** The service's count of one window, `own` being every send of ours in it (those in flight included). */
export interface WindowCount {
  periodMs: number;
  resetAt: number;
  limit: number;
  counted: number;
  own: number;
}

/** Whether a window's count holds sends of others; a little slack, as a send of ours may be counted in the window before as well. */
function othersIn({ limit, counted, own }: WindowCount): boolean {
  return counted - own > Math.max(1, limit * 0.01);
}

/** Whether other clients use the account: seen in its counts lately; assumed (none seen since the start); or none. */
export type Others = 'seen' | 'assumed' | 'none';

/**
 * Other clients of the account on other machines, known only through the service's counts: what
 * it counted in a window beyond our own sends was sent by them (X-RateLimit-Remaining is the truth
 * about what others used). While they are seen, each window is shared by rules every job applies
 * alike (OtherClientsPolicy), and a job that the others crowd out is counted at the next reset
 * (the retry policy brings it back just before them), so they see it too.
 */
export class OtherClients {
  readonly #policy: OtherClientsPolicy;
  #seenAt = -Infinity;
  /** Clients counted in rounds (observeRound), the latest last. */
  #rounds: { at: number; clients: number }[] = [];
  #firstAnswerAt = -Infinity;
  #competing = false;
  /** An answer received after the start grace showed no other client. */
  #aloneConfirmed = false;

  constructor(policy: OtherClientsPolicy) {
    this.#policy = policy;
  }

  /**
   * An answer's counts, one per window: `counted` by the service in the window, and `own`, every
   * send of ours in it, those still in flight included (they may have arrived first), so that
   * others are never overestimated.
   */
  observe(counts: readonly WindowCount[], windows: readonly { periodMs: number }[], now: number): void {
    if (this.#firstAnswerAt === -Infinity) this.#firstAnswerAt = now;
    if (counts.some(othersIn)) this.#seenAt = now;
    else if (now >= this.#graceUntil(windows) && this.#holdsStarters(counts, now)) this.#aloneConfirmed = true;
    const shortest = counts.reduce<WindowCount | undefined>((a, b) => (a && a.periodMs <= b.periodMs ? a : b), undefined);
    this.#competing = shortest !== undefined && othersIn(shortest);
  }

  /**
   * Whether the latest answer showed others' sends in the shortest window: they take turns with us
   * for what is left of it (scrambleRounds). Once they are done, or wait for a longer window, the
   * rest goes at once.
   */
  get competing(): boolean {
    return this.#competing;
  }

  /**
   * One round of ours alone in flight, between two answers in the same window: the service counted
   * `othersCounted` components of others between them, and we sent `own`. Past the shared part,
   * every job sends one request a round, sized as ours by the same rule, so the others' components
   * over ours count the others who sent in the round; every job sees the same rounds, whatever its
   * own share. Not in a job's first (shortest) period: jobs started with it are still joining.
   */
  observeRound(othersCounted: number, own: number, windows: readonly { periodMs: number }[], now: number): void {
    if (now < this.#firstAnswerAt + shortestPeriodMs(windows)) return;
    this.#rounds = this.#rounds.filter((round) => now - round.at < 2 * longestPeriodMs(windows));
    this.#rounds.push({ at: now, clients: Math.min(this.#policy.assumedClients, 1 + Math.ceil(Math.max(0, othersCounted) / own)) });
  }

  /** The most clients counted in a round lately; assumedClients when none was counted. */
  clientsCounted(windows: readonly { periodMs: number }[], now: number): number {
    const recent = this.#rounds.filter((round) => now - round.at < 2 * longestPeriodMs(windows));
    return recent.length === 0 ? this.#policy.assumedClients : Math.max(...recent.map((round) => round.clients));
  }

  state(windows: readonly { periodMs: number }[], now: number): Others {
    if (now - this.#seenAt < 2 * longestPeriodMs(windows)) return 'seen';
    return this.#aloneConfirmed ? 'none' : 'assumed';
  }

  /** The end of `window`'s shared first part while others are seen or assumed; else now (nothing is held back). */
  fairUntil(window: CountedWindow, windows: readonly { periodMs: number }[], now: number): number {
    const others = this.state(windows, now);
    if (others === 'none') return now;
    // None seen yet: the share holds for the start grace only; then a unit asks whether anyone is
    // there (room), rather than the job idling to the end of a 60 s window's first tenth.
    if (others === 'assumed') return this.#graceUntil(windows);
    return Math.max(window.resetAt - window.periodMs * (1 - this.#policy.fairPart), this.#graceUntil(windows));
  }

  /**
   * What `window` leaves us, `ours` saying what we sent in it (asked only while sharing): all that
   * is left when we are alone; in the shared first part, our share; after it, a slice of what is
   * left, down to a unit. The last few units of a window (fewer than the clients in a round) go
   * unused: taking them is a race.
   */
  room(window: CountedWindow, ours: () => number, unit: number, windows: readonly { periodMs: number }[], now: number): number {
    const others = this.state(windows, now);
    if (others === 'none') return window.remaining;
    const clients = this.#policy.assumedClients;
    if (now < this.fairUntil(window, windows, now)) {
      return Math.min(window.remaining, Math.max(1, Math.floor(window.limit / (clients + 1))) - ours());
    }
    const slice = Math.floor(window.remaining / clients / unit) * unit;
    if (slice > 0 || window.remaining < unit) return slice;
    // Others only assumed (none seen since the start): a unit, whose answer says whether anyone is
    // there. Seen: a unit while as many are left as clients were counted in a round; each sends one
    // a round, so however old our view, what they sent since still leaves ours room.
    return others === 'assumed' || window.remaining >= this.clientsCounted(windows, now) * unit ? unit : 0;
  }

  /**
   * Whether these counts would hold the requests of jobs that started with us (within the start
   * grace): once a window has reset, they send their shares at its reset and a margin, so a count
   * from the window's first moments may not hold them yet. Counted from the window's start: its
   * shared part, or the start grace when shorter (a second of a 60 s window, not six).
   */
  #holdsStarters(counts: readonly WindowCount[], now: number): boolean {
    return counts.every(
      (count) => now >= count.resetAt - count.periodMs + Math.min(this.#policy.startGraceMs, count.periodMs * this.#policy.fairPart),
    );
  }

  #graceUntil(windows: readonly { periodMs: number }[]): number {
    return this.#firstAnswerAt + startGraceMs(this.#policy, windows);
  }
}

/** How long a job starting shares as if others started with it: startGraceMs, at most the shortest window's shared part. */
export function startGraceMs(policy: OtherClientsPolicy, windows: readonly { periodMs: number }[]): number {
  return Math.min(policy.startGraceMs, shortestPeriodMs(windows) * policy.fairPart);
}

/** Past a window's shared first part, the least time between two of a job's requests: OtherClientsPolicy.scrambleRounds. */
export function scramblePaceMs(policy: OtherClientsPolicy, windows: readonly { periodMs: number }[]): number {
  return shortestPeriodMs(windows) / policy.scrambleRounds;
}

function longestPeriodMs(windows: readonly { periodMs: number }[]): number {
  return Math.max(...windows.map((w) => w.periodMs));
}

function shortestPeriodMs(windows: readonly { periodMs: number }[]): number {
  return Math.min(...windows.map((w) => w.periodMs));
}
