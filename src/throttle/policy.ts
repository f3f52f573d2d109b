/**
 * The pacing policy: every constant the rate limiter and its pacers use, in one table with the
 * reason for each default (as ky and undici's RetryHandler keep every option with its default in
 * one place). A run's limiter is given the table with --rate and --max-wait put in; the pacing
 * guide's numbers are these (test/throttle/pacing-guide.test.ts fails when they drift apart).
 */
export interface ThrottlePolicy {
  /** Components per minute assumed until the service's headers describe the real windows (--rate). */
  initialPerMinute: number;
  /** The most the first request may carry, before any answer has described the windows. */
  firstRequestComponents: number;
  /** Slack after each window's reset, as a fraction of the window, at least minMarginMs. */
  marginFraction: number;
  minMarginMs: number;
  /** How long a request may take to reach the service: one sent this long before a reset may count in the next window. */
  transitMs: number;
  /** The longest wait for the rate limit worth sitting through (--max-wait); a longer one stops the run (QuotaWaitError). */
  maxWaitMs: number;
  /** How long after its first answer a job takes no more than its start share of a window... */
  startGraceMs: number;
  /** ...and at most this part of the shortest window. */
  startGracePart: number;
  /** How many clients every job assumes while it shares a window with others it cannot count exactly. */
  assumedClients: number;
  /** With a shared store: how soon a job held back only by the others' shares, or by requests in flight, asks again. */
  recheckMs: number;
  /** With a shared store: how long the others wait for the answer to the one request sent while no job knows the windows. */
  probeWaitMs: number;
  /** With a shared store: how long reservations are kept past the longest window. */
  keepReservationsMs: number;
  /** With a shared store: after this many of the longest windows without asking, a job has stopped. */
  staleAfterPeriods: number;
  /** Without a shared store: the first part of each window, taken in start shares at the reset while others are seen. */
  sharedPart: number;
  /** Without a shared store: past the shared part, at most one request per this fraction of the shortest window while others send in it. */
  scrambleRounds: number;
  /** Without a shared store: how far a count may exceed our own sends (a part of the limit, at least 1) before others are seen. */
  othersSlack: number;
  /** Without a shared store: how many of the longest windows other clients, once seen, are assumed to stay. */
  seenForPeriods: number;
}

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = {
  // The self-serve plan (spec, Limits): what most accounts have, and what the first answer corrects.
  initialPerMinute: 250,
  // Small, so that a window tighter than a batch (20 a second against batches of 100) is learnt from
  // a request it admits, not from a 429; and a quota an earlier job spent costs one small refusal.
  firstRequestComponents: 10,
  // Clock skew and transit jitter after a reset: 300 ms of a minute, 50 ms of a second or two. Every
  // ms of margin is a window left unused, so it is small; the service's clock is corrected for apart
  // from it (ServiceClock).
  marginFraction: 0.005,
  minMarginMs: 50,
  // Round trips to the service take well under this: a request reserved this long before a reset
  // counts in both windows until its answer says which one the service counted it in.
  transitMs: 200,
  // An unattended batch sits through a quarter of an hour (the --max-wait default of a batch); a
  // daily quota spent is better a stop that says when to resume than a night of sleeping.
  maxWaitMs: 15 * 60_000,
  // A crontab starts its jobs a few hundred ms apart: the first one answered would otherwise take
  // the whole first window before the others' first requests arrive. A second is one start in 60
  // at the self-serve plan, and a tenth of a window is one in 10 at a 2 s window (docs/pacing.md, "What the
  // start grace costs"); both cost a job alone one window at most, once.
  startGraceMs: 1_000,
  startGracePart: 0.1,
  // Jobs on other machines cannot count each other, so each assumes the same number whatever it
  // sees: a number measured from its own part of the counts is lowest for the job that took most,
  // and keeps it ahead. Safe for about half as many jobs; more jobs cost 429s, fewer cost a few
  // round trips per window. A start share is a window over assumedClients + 1.
  assumedClients: 16,
  // A share claimed by a job that then wants less (its demand was met, or it finished) goes to the
  // others this soon; waiting for the next window instead, one of 8 jobs left the last 29
  // components of a window of 250 unused, and took a fifth window.
  recheckMs: 200,
  // Eight jobs probing at once would overrun a window of 50; the probe's answer takes a round trip.
  probeWaitMs: 2_000,
  // Enough to count any window's use: a reservation counts until its window has reset, and a moment
  // before that (transitMs).
  keepReservationsMs: 2_000,
  // A job between two batches asks again within a window; one silent for two of the longest has
  // stopped or died, and its share goes to the others.
  staleAfterPeriods: 2,
  // The part of each window where jobs that cannot see each other's reservations take equal shares
  // at once; after it, what is left goes in turns. A tenth: a 6 s window's first 600 ms.
  sharedPart: 0.1,
  // In turns, every job there sends once per round: what is left goes to all of them, not to
  // whichever answers fastest. 40 rounds: 150 ms of a 6 s window, 25 ms of a second.
  scrambleRounds: 40,
  // A send of ours just before a reset may be counted in the window before as well: a count this
  // far over our own sends is still ours.
  othersSlack: 0.01,
  // Jobs of a crontab pause between batches and wait out longer windows: seen once, they are assumed
  // to stay for two of the longest windows, and the clients counted in their rounds as long.
  seenForPeriods: 2,
};
