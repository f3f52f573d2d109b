import type { StoreError } from '../errors/index.js';
import { DEFAULT_THROTTLE_POLICY } from '../policy/policy.js';
import type { Clock } from '../throttle/clock.js';
import { RateLimiter } from '../throttle/rate-limiter.js';
import type { Service } from './connect.js';
import { openSessionRuns, type SessionRuns } from './run-store.js';

/** The store a session keeps its answers, spend and pacing in. */
export interface SessionStore {
  /** A SQLite file or a postgres:// URL. */
  path: string;
  /** Whose answers these are: the account the credentials name. */
  account: string;
  /** The account whose windows the session paces by, when not `account` (the built-in sandbox: one per port). */
  pacingAccount?: string;
  /** What runs it, for its name in the spend log (`usage --by run`). */
  runLabel: string;
  /** This machine's journal of the store (journalDirFor): answers it could not take yet, applied as the session opens it. */
  journal: string;
  /** How long the session waits for a store that stopped answering before its jobs stop (--store-wait). */
  outageWaitMs: number;
  /** The one name the session's jobs claim under, to outlive the process (a gateway's: SessionRunsSettings.claimant). */
  claimant?: string;
  /** PostgreSQL: the connections the store keeps, shared by every job of the session at once (StoreOptions.connections). */
  connections?: number;
  /**
   * Leave the store unopened (a SQLite file only): what is bought is left beside it for its next
   * opening (run-store-beside.ts). For a one-off with nothing to look up, on a file no other process has open.
   */
  beside?: boolean;
}

export interface SessionSettings {
  /** Opened and closed by the caller. */
  service: Service;
  /** Undefined: no store (nothing reused, nothing remembered). */
  store?: SessionStore;
  clock: Clock;
  /** Components a minute until the service states its windows. */
  ratePerMinute: number;
  /** The longest a job waits for a window to reset, unless it says otherwise (its pacer's). */
  maxWaitMs: number;
  /** The store stopped answering: sending waits for it this long at most; and when it is back. */
  storeLost?(reason: StoreError, waitMs: number): void;
  storeBack?(afterMs: number, journaled: number): void;
}

/**
 * What a process keeps for one account and store while it works, whatever it runs on them: a CLI
 * job, a library client's calls and batches, a gateway's requests. The expensive parts live as
 * long as the session, not as long as a call: the store's connection (one PostgreSQL pool), the
 * pacer (one rate limiter, shared through the store with the account's other sessions), the
 * claims' heartbeat and the spend log's run. A job (run-job.ts, runOnSession) is light on top of it.
 */
export interface Session {
  readonly service: Service;
  readonly clock: Clock;
  /** Every job's pacer: the account's windows as this process knows them. */
  readonly limiter: RateLimiter;
  /** The store's side; undefined without a store. */
  readonly runs: SessionRuns | undefined;
  /** Gives up the session's share of the windows and closes the store (the service is the caller's). */
  close(): Promise<void>;
}

/**
 * The store for a session, opened (and created) where its path says, riding out outages; what this
 * machine journaled while it was away goes into it first. `run`: the session's name, when it began
 * beside the store and opens it after all (its claims left beside are its own).
 */
async function openRuns(settings: SessionSettings & { store: SessionStore }, run?: string): Promise<SessionRuns> {
  const { store, clock } = settings;
  if (store.beside) {
    const { runsBeside } = await import('./run-store-beside.js');
    return runsBeside({
      ...{ path: store.path, account: store.account, clock, runLabel: store.runLabel },
      open: (name) => openRuns({ ...settings, store: { ...store, beside: false } }, name),
    });
  }
  const { openStore, OutageTolerantStore, foldPending } = await import('../store/index.js');
  const connections = store.connections !== undefined ? { connections: store.connections } : {};
  const opened = new OutageTolerantStore(await openStore(store.path, { now: () => clock.now(), ...connections }), {
    journal: store.journal,
    waitMs: store.outageWaitMs,
    clock,
    events: {
      lost: (reason, waitMs) => settings.storeLost?.(reason, waitMs),
      back: (afterMs, journaled) => settings.storeBack?.(afterMs, journaled),
    },
  });
  try {
    await foldPending(opened, store.journal);
    return openSessionRuns({
      store: opened,
      account: store.account,
      ...(store.pacingAccount !== undefined ? { pacingAccount: store.pacingAccount } : {}),
      clock,
      runLabel: store.runLabel,
      ...(store.claimant !== undefined ? { claimant: store.claimant } : {}),
      ...(run !== undefined ? { run } : {}),
    });
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** The session's pacer: the windows an earlier session saw (no probe then), shared with the account's other sessions on this store. */
async function limiterFor(settings: SessionSettings, runs: SessionRuns | undefined): Promise<RateLimiter> {
  const policy = { ...DEFAULT_THROTTLE_POLICY, initialPerMinute: settings.ratePerMinute, maxWaitMs: settings.maxWaitMs };
  const limiter = new RateLimiter(policy, settings.clock);
  const remembered = await runs?.windows();
  if (remembered) limiter.remember(remembered);
  const shared = runs?.pacer();
  if (shared) limiter.shareWith(shared);
  return limiter;
}

/** A session on a connected service: its store opened, its pacer made. */
export async function openSession(settings: SessionSettings): Promise<Session> {
  const runs = settings.store ? await openRuns({ ...settings, store: settings.store }) : undefined;
  try {
    const limiter = await limiterFor(settings, runs);
    let closing: Promise<void> | undefined;
    return {
      service: settings.service,
      clock: settings.clock,
      limiter,
      runs,
      // Closed once: a second call waits for the first.
      close: () => (closing ??= runs?.close() ?? Promise.resolve()),
    };
  } catch (error) {
    await runs?.close().catch(() => undefined);
    throw error;
  }
}
