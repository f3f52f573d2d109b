import type { ReportedWindow } from './rate-headers.js';

/**
 * How a job shares the account's windows with the other clients of the account: the one policy
 * interface of the rate limiter (as octokit's throttling core is given its policy). The limiter
 * keeps what any job knows alone (its own sends, what the service's counts leave it, a 429's
 * pause) and asks its pacing how much of that it may take. Side by side:
 *
 * - OtherClients (other-clients.ts): no shared store (jobs on other machines, or --no-store): what
 *   others use is read from the service's counts, and every job follows the same rules of shares
 *   and turns;
 * - SharedPacing (shared-pacing.ts) over a SharedPacer: several jobs reserve in one state, kept in
 *   memory (memoryPacer: limiters in one process) or in a store (store/pacer.ts: processes on one
 *   machine; a database: machines), each store applying the same rules (shared-pacer.ts).
 */
export interface Pacing {
  /** What the job may send now of `ask` (which the job's own windows admit), or when to ask again. */
  reserve(ask: PaceAsk, job: JobView): Promise<PaceDecision>;
  /**
   * The answer to a request granted under `grant`: the windows its headers state, in the order the
   * job now knows them (job.windows), before the job applies the answer to them. `alone`: it was
   * the only request in flight when it was sent, and none was sent since.
   */
  answered(grant: PacedGrant, reported: readonly ReportedWindow[], job: JobView, alone: boolean): void;
  /** The service refused (429) and did not count the request granted under `grant`, or it was never sent. */
  refunded(grant: PacedGrant): void;
}

export interface PaceAsk {
  /** The most the job's own windows admit now. */
  wanted: number;
  /** Granted in whole units of this (an item's components); all or nothing when it equals `wanted`. */
  unit: number;
  /** Everything the job is waiting to send, `wanted` included: its claim on a window's fair share. */
  demand: number;
}

export type PaceDecision =
  /** Send `components` now; `shared`: the grant's id in the shared pacer, handed back with its answer or refund. */
  | { grant: number; shared?: number }
  /** Ask again at this time (epoch ms), or sooner if something changes; `resetAt`: the service's reset it waits for, if one. */
  | { readyAt: number; resetAt?: number }
  /** Ask again when an answer comes. */
  | { afterAnswer: true };

/** A grant as the pacing made it. */
export interface PacedGrant {
  components: number;
  shared?: number;
}

/** One window as the job knows it. */
export interface JobWindow {
  periodMs: number;
  limit: number;
  /** Slack after its reset (marginAfterReset). */
  marginMs: number;
  /**
   * What the service's count of its current fixed window leaves, less the job's requests in flight
   * (`remaining`); the least remaining it stated (`reported`); and when it ends. Undefined before
   * the service has stated the window.
   */
  budget?: { remaining: number; reported: number; resetAt: number } | undefined;
}

/** What a job knows of itself, as its pacing reads it. */
export interface JobView {
  now: number;
  windows: readonly JobWindow[];
  /** Requests of the job in flight. */
  inFlight: number;
  /** When its latest grant was made. */
  lastSentAt: number;
  /** Its sends (those in flight included) that count in the window of `periodMs` ending `resetAt`. */
  sentIn(periodMs: number, resetAt: number): number;
}
