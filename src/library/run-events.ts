import type { RunSummary } from '../pipeline/summary.js';

/** What a batch tells its caller while it runs (ClientOptions.onEvent, BatchOptions.onEvent). */
export type RunEvent =
  /** A request reached the service: its status, what it asked and what it cost at list price (sections answered with data). */
  | { type: 'response'; status: number; items: number; components: number; costUsd: number }
  /** Where the batch has got to, after each response. */
  | { type: 'progress'; rowsRead: number; recordsWritten: number; requestsInFlight: number; componentsUsed: number; costUsd: number }
  /** A request failed and is sent again. */
  | { type: 'retry'; reason: string }
  /** A 429: every request of the batch waits this long for the window to reset. */
  | { type: 'rate-limit-wait'; ms: number }
  /**
   * The caller stopped the batch (an abort, leaving the loop) and records already paid for were
   * not handed over: with a store they are kept there; with `store: false` they are lost. Before `end`.
   */
  | { type: 'paid-not-handed-over'; records: number; components: number; costUsd: number; kept: boolean }
  /**
   * The client's store stopped answering (a database restarting, failing over): sending pauses, for
   * `waitMs` at most (`storeWait`), and what is answered meanwhile is kept on this machine. Told to the
   * client's onEvent (the store is the client's, shared by its calls), once per outage.
   */
  | { type: 'store-lost'; reason: string; waitMs: number }
  /** The store answers again after `afterMs`; `journaled`: the requests answered meanwhile, now stored. The client's onEvent too. */
  | { type: 'store-back'; afterMs: number; journaled: number }
  /** The batch has ended: its summary, as `propdata --report` writes it. */
  | { type: 'end'; summary: RunSummary };
