/** The part of the throttle policy for other clients of the account that share no pacer with us (other machines). */
export interface OtherClientsPolicy {
  /**
   * While the service's counts show other clients, this many are assumed. Every job assumes the
   * same number, whatever its own view: a number measured from the counts (the service's count
   * over one's own) is lowest for the job that took most, and keeps it ahead. Safe for about half
   * as many jobs; more jobs cost 429s, fewer cost a few round trips per window and the window's
   * last units (fewer than this many).
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
   * as if others were seen, and then until an answer shows none: a crontab starts several jobs at
   * once, and the first one answered would otherwise empty the window before the others' first
   * requests arrive, and keep a window's lead. A job alone loses this long, and a round trip, once.
   */
  startGraceMs: number;
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
  #firstAnswerAt = -Infinity;
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
  observe(counts: readonly { limit: number; counted: number; own: number }[], windows: readonly { periodMs: number }[], now: number): void {
    if (this.#firstAnswerAt === -Infinity) this.#firstAnswerAt = now;
    // A little slack: a send of ours counted in the window before as well.
    if (counts.some(({ limit, counted, own }) => counted - own > Math.max(1, limit * 0.01))) this.#seenAt = now;
    else if (now >= this.#graceUntil(windows)) this.#aloneConfirmed = true;
  }

  state(windows: readonly { periodMs: number }[], now: number): Others {
    const longest = Math.max(...windows.map((w) => w.periodMs));
    if (now - this.#seenAt < 2 * longest) return 'seen';
    return this.#aloneConfirmed ? 'none' : 'assumed';
  }

  /** The end of `window`'s shared first part while others are seen or assumed; else now (nothing is held back). */
  fairUntil(window: CountedWindow, windows: readonly { periodMs: number }[], now: number): number {
    if (this.state(windows, now) === 'none') return now;
    return Math.max(window.resetAt - window.periodMs * (1 - this.#policy.fairPart), this.#graceUntil(windows));
  }

  /**
   * What `window` leaves us, `ours` saying what we sent in it (asked only while sharing): all that
   * is left when we are alone; in the shared first part, our share; after it, a slice of what is
   * left. The last few units of a window (fewer than assumedClients) go unused: taking them is a race.
   */
  room(window: CountedWindow, ours: () => number, unit: number, windows: readonly { periodMs: number }[], now: number): number {
    const others = this.state(windows, now);
    if (others === 'none') return window.remaining;
    const clients = this.#policy.assumedClients;
    if (now < this.fairUntil(window, windows, now)) {
      return Math.min(window.remaining, Math.max(1, Math.floor(window.limit / (clients + 1))) - ours());
    }
    const slice = Math.floor(window.remaining / clients / unit) * unit;
    // Others only assumed (none seen since the start): a unit at least, whose answer says whether anyone is there.
    return slice === 0 && window.remaining >= unit && others === 'assumed' ? unit : slice;
  }

  #graceUntil(windows: readonly { periodMs: number }[]): number {
    return this.#firstAnswerAt + startGraceMs(this.#policy, windows);
  }
}

/** How long a job starting shares as if others started with it: startGraceMs, at most the shortest window's shared part. */
export function startGraceMs(policy: OtherClientsPolicy, windows: readonly { periodMs: number }[]): number {
  return Math.min(policy.startGraceMs, Math.min(...windows.map((w) => w.periodMs)) * policy.fairPart);
}
