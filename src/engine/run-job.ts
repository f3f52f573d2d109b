import { setMaxListeners } from 'node:events';
import type { InputRow, PreparedItem } from '../input/row.js';
import type { QueryTarget } from '../model/query-target.js';
import { STATUSES, type Status } from '../model/status.js';
import type { OutputWriter } from '../output/open-output.js';
import { CLAIMS, DEFAULT_RETRY_POLICY } from '../policy/policy.js';
import { inputProgress } from '../input/read-progress.js';
import { Budget } from '../pipeline/budget.js';
import { OrderedOutput } from '../pipeline/ordered-output.js';
import { billedCost, pricePerItem, sectionPricesOf } from '../pipeline/pricing.js';
import { LISTENERS_PER_REQUEST, runBatch, type BatchRunResult, type SendFunction } from '../pipeline/run-batch.js';
import { RunStats } from '../pipeline/run-stats.js';
import { sendBatch, type Exchange } from '../pipeline/send-batch.js';
import { completedOutcome, summarize, type RunSummary } from '../pipeline/summary.js';
import type { StoreError } from '../errors/index.js';
import type { StoreProblems } from '../store/store-api.js';
import type { Clock } from '../throttle/clock.js';
import { DEFAULT_THROTTLE_POLICY } from '../policy/policy.js';
import { RateLimiter } from '../throttle/rate-limiter.js';
import { budgetLimits, type SpendingCaps } from './budget-limits.js';
import type { Service } from './connect.js';
import { openRunStore, type JobIdentity, type RunStore } from './run-store.js';

/**
 * Distinct answers kept for deduplication: repeats within 5,000 distinct items are caught, and
 * memory stays flat. They are the largest part of a run's live memory: 10,000 put a million-row
 * run at 1.3 times a small run's peak, 5,000 at 1.2 (BENCHMARKS.md, memory).
 */
export const DEDUPE_CAPACITY = 5_000;

/** The store a job keeps its answers, spend and pacing in. */
export interface JobStore {
  /** A SQLite file or a postgres:// URL. */
  path: string;
  /** Whose answers these are: the account the credentials name. */
  account: string;
  /** The account whose windows the run paces by, when not `account` (the built-in sandbox: one per port). */
  pacingAccount?: string;
  /** The job the run continues: what it bought since that job began is reused whatever maxAgeMs says. */
  job?: string | JobIdentity;
  /** An answer younger than this is reused; undefined: age alone never makes one reusable. */
  maxAgeMs?: number;
  /** What ran it, for its name in the spend log. */
  runLabel: string;
  /** This machine's journal of the store (journalDirFor): answers it could not take yet, applied as the run opens it. */
  journal: string;
  /** How long the run waits for a store that stopped answering before it stops (--store-wait). */
  outageWaitMs: number;
  /**
   * Leave the store unopened (a SQLite file only): what is bought is left beside it for its next
   * opening (run-store-beside.ts). For a one-off with nothing to look up, on a file no other process has open.
   */
  beside?: boolean;
}

/** How a job sends: batches, connections, pace, retries. */
export interface JobPace {
  batchSize: number;
  concurrency: number;
  /** Components a minute until the service states its windows. */
  ratePerMinute: number;
  dedupe: boolean;
  maxRetries: number;
  /** The longest wait for a window to reset; beyond it the run stops (QuotaWaitError). */
  maxWaitMs: number;
}

/** What a caller hears while the job runs. */
export interface JobEvents {
  /** Once the run's counters and pacer exist, before the first row is read (the CLI's progress bar). */
  started?(run: { stats: RunStats; limiter: RateLimiter }): void | Promise<void>;
  /** A request failed and is sent again. */
  retry?(reason: string): void;
  /** A 429: every sender waits this long for the window to reset. */
  rateLimitWait?(ms: number): void;
  /** A request reached the service: what it asked, its status, and its cost at list price (sections answered with data). */
  response?(exchange: Exchange, costUsd: number): void;
  /** The store stopped answering: sending waits for it this long at most. */
  storeLost?(reason: StoreError, waitMs: number): void;
  /** The store answers again, after this long; the answers journaled meanwhile (requests) are in it. */
  storeBack?(afterMs: number, journaled: number): void;
}

export interface JobSettings {
  /** The endpoint, or an mget's components. */
  target: QueryTarget;
  rows: AsyncIterable<InputRow>;
  prepare: (row: InputRow) => PreparedItem;
  /** Opened and closed by the caller: a library client keeps one for many jobs. */
  service: Service;
  /** Opened once the store and the budget let the run start, so a run that cannot start leaves the output as it was. */
  openWriter: () => Promise<OutputWriter>;
  /** Rows already in the output (a resumed file): rows before `startRow` are read past, except `retryRows`. */
  startRow?: number;
  retryRows?: readonly number[];
  /** The records an appended output already holds, by status: the summary describes the whole output. */
  earlier?: Record<Status, number>;
  /** Undefined: no store (nothing reused, nothing remembered). */
  store?: JobStore;
  caps: SpendingCaps;
  /** List price overrides by endpoint name, USD per component. */
  prices?: Record<string, string>;
  pace: JobPace;
  clock: Clock;
  /** Aborted to stop: nothing new is sent, requests in flight finish, their answers are kept and written. */
  signal?: AbortSignal;
  /** Aborted when the output fails outside its writer (its lock lost): a stop with that failure as its cause. */
  outputFailure?: AbortSignal;
  /**
   * Whether, when the output fails (a full disk), requests in flight still finish so the store keeps
   * their answers (a file beside a store); otherwise an answer nobody can take is not waited for.
   */
  finishInFlightOnOutputFailure: boolean;
  /** A request of one item without meta goes as the spec's one-item GET (a one-off's), not a POST. */
  oneItemGet?: boolean;
  events?: JobEvents;
}

/** How a job ended: what the CLI prints and maps to an exit code, and what a library caller reads. */
export interface JobOutcome {
  summary: RunSummary;
  /** The condition that stopped the run (authentication, credit, a budget, a failing output or store), if one did. */
  fatal?: unknown;
  /** Stopped by its signal, with no condition of its own. */
  interrupted: boolean;
  /** Every row has its record (which may be an error). */
  finished: boolean;
  /** The records of the whole output by status (earlier runs' included). */
  records: Record<Status, number>;
  /** The first row not written. */
  nextRow: number;
  /** Whether the output itself failed (a full disk, a closed pipe). */
  outputFailed: boolean;
  /** What the store met that is worth saying once (damaged answers bought again). */
  storeProblems?: StoreProblems;
  /** The store failed as it closed, after the run: its answers were kept, its last notes may not be. */
  storeCloseFailure?: unknown;
}

function addCounts(a: Record<Status, number>, b: Record<Status, number>): Record<Status, number> {
  return Object.fromEntries(STATUSES.map((status) => [status, a[status] + b[status]])) as Record<Status, number>;
}

/**
 * The store for a job, opened (and created) where its path says, riding out outages; what this
 * machine journaled while it was away (an earlier run's) goes into it first.
 */
async function openJobStore(
  store: JobStore,
  target: QueryTarget,
  prices: Record<string, number>,
  clock: Clock,
  events: JobEvents | undefined,
  run?: string,
): Promise<RunStore> {
  if (store.beside) {
    const { runStoreBeside } = await import('./run-store-beside.js');
    return runStoreBeside({
      ...{ path: store.path, account: store.account, target, prices, clock, runLabel: store.runLabel },
      open: (name) => openJobStore({ ...store, beside: false }, target, prices, clock, events, name),
    });
  }
  const { openStore, OutageTolerantStore, foldPending } = await import('../store/index.js');
  const opened = new OutageTolerantStore(await openStore(store.path, { now: () => clock.now() }), {
    journal: store.journal,
    waitMs: store.outageWaitMs,
    clock,
    events: {
      lost: (reason, waitMs) => events?.storeLost?.(reason, waitMs),
      back: (afterMs, journaled) => events?.storeBack?.(afterMs, journaled),
    },
  });
  try {
    await foldPending(opened, store.journal);
    return await openRunStore({
      store: opened,
      account: store.account,
      ...(store.pacingAccount !== undefined ? { pacingAccount: store.pacingAccount } : {}),
      target,
      maxAgeMs: store.maxAgeMs,
      ...(store.job !== undefined ? { job: store.job } : {}),
      prices,
      clock,
      runLabel: store.runLabel,
      ...(run !== undefined ? { run } : {}),
    });
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** The run's caps as one budget; a budget below one item's price stops the job before anything is opened. */
async function budgetFor(settings: JobSettings, runStore: RunStore | undefined): Promise<Budget> {
  const { target } = settings;
  const monthToDate = runStore && settings.caps.maxCostMonth !== undefined ? await runStore.monthToDateCost() : 0;
  const budget = new Budget(
    budgetLimits(settings.caps, () => monthToDate),
    { components: target.componentsPerItem, price: pricePerItem(target, settings.prices) },
  );
  const tooSmall = budget.tooSmallForOneItem();
  if (tooSmall) throw tooSmall;
  return budget;
}

/** The run's pacer: the windows an earlier run saw (no probe then), shared with the account's other runs on this store. */
async function limiterFor({ pace, clock }: JobSettings, runStore: RunStore | undefined): Promise<RateLimiter> {
  const limiter = new RateLimiter({ ...DEFAULT_THROTTLE_POLICY, initialPerMinute: pace.ratePerMinute, maxWaitMs: pace.maxWaitMs }, clock);
  const remembered = await runStore?.windows();
  if (remembered) limiter.remember(remembered);
  const shared = runStore?.pacer();
  if (shared) limiter.shareWith(shared);
  return limiter;
}

/**
 * What stops the run: the caller's signal, and the output failing (a reader closing the pipe, a
 * full disk, a lost lock), which stops it at once, not at the next write. `detach` when the run is over.
 */
function stopSignals(settings: JobSettings, writer: OutputWriter) {
  const outputFailure = new AbortController();
  // Every request in flight listens for it (an exchange abandoned when the output fails).
  setMaxListeners(LISTENERS_PER_REQUEST * settings.pace.concurrency + 10, outputFailure.signal);
  writer.failed.catch((error: unknown) => outputFailure.abort(error));
  const lostOutput = () => outputFailure.abort(settings.outputFailure?.reason);
  if (settings.outputFailure?.aborted) lostOutput();
  settings.outputFailure?.addEventListener('abort', lostOutput, { once: true });
  const stop = new AbortController();
  const forward = (signal: AbortSignal | undefined) => {
    const onAbort = () => stop.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    return () => signal?.removeEventListener('abort', onAbort);
  };
  const unforward = [forward(outputFailure.signal), forward(settings.signal)];
  const detach = () => {
    for (const undo of unforward) undo();
    settings.outputFailure?.removeEventListener('abort', lostOutput);
  };
  return { outputFailure, stop, detach };
}

/** How the pipeline sends a batch: sendBatch with the run's pacer, retry policy and budget, every answer recorded. */
function senderFor(
  settings: JobSettings,
  run: { limiter: RateLimiter; budget: Budget; stats: RunStats; runStore: RunStore | undefined; outputFailure: AbortSignal },
): SendFunction {
  const { pace, clock, events } = settings;
  const { runStore, stats } = run;
  const sectionPrices = sectionPricesOf(settings.target, settings.prices);
  return (items, batchTarget, signal, deliver) =>
    sendBatch(
      items,
      batchTarget,
      {
        client: settings.service.client,
        limiter: run.limiter,
        sectionPrices,
        retry: { ...DEFAULT_RETRY_POLICY, maxRetries: pace.maxRetries, maxWaitMs: pace.maxWaitMs },
        stats,
        clock,
        signal,
        ...(runStore && settings.finishInFlightOnOutputFailure ? {} : { abandon: run.outputFailure }),
        budget: run.budget,
        ...(settings.oneItemGet ? { oneItemGet: true } : {}),
        onRetry: (reason) => events?.retry?.(reason),
        onRateLimitWait: (until) => events?.rateLimitWait?.(Math.max(0, until - clock.now())),
        onResponse: (exchange: Exchange) => {
          const { cost } = billedCost(exchange.chunks, sectionPrices);
          stats.costUsd += cost;
          runStore?.kept.record(exchange);
          events?.response?.(exchange, cost);
        },
      },
      deliver,
    );
}

/** How the job ended, for the caller: the summary, the stopping condition, the output's counts (earlier runs' included). */
async function outcomeOf(
  settings: JobSettings,
  run: { stats: RunStats; limiter: RateLimiter; output: OrderedOutput; runStore: RunStore | undefined },
  result: BatchRunResult,
  failure: unknown,
): Promise<JobOutcome> {
  const { stats, output, runStore } = run;
  const fatal = failure ?? result.fatal;
  const interrupted = result.interrupted && failure === undefined;
  const finished = fatal === undefined && !interrupted;
  // The output holds the earlier runs' records and this run's: up to the last row written.
  const records = settings.earlier ? addCounts(settings.earlier, stats.byStatus) : { ...stats.byStatus };
  // Every row has its final answer: the next run of this job is a new one (maxAge decides what it reuses).
  if (finished && records.error === 0) await runStore?.finishJob();
  const verdict: RunSummary['outcome'] = !finished ? (fatal === undefined ? 'interrupted' : 'stopped') : completedOutcome(records);
  const summary = summarize(stats, run.limiter, verdict, {
    records,
    ...(settings.earlier ? { recordsThisRun: { ...stats.byStatus } } : {}),
    componentsSaved: result.componentsSaved * settings.target.componentsPerItem,
    fromStore: stats.fromStore,
    savedByStore: Math.round(result.savedByStore.usd * 100) / 100,
    ...(!finished ? { nextRow: output.nextRow, restInStore: result.endsAtGap } : {}),
  });
  return {
    summary,
    ...(fatal !== undefined ? { fatal } : {}),
    interrupted,
    finished,
    records,
    nextRow: output.nextRow,
    outputFailed: failure !== undefined,
    ...(runStore ? { storeProblems: runStore.problems() } : {}),
  };
}

/** The rows through the pipeline into the opened writer; the writer closed whatever happens, and its failure kept as the run's. */
async function runRows(
  settings: JobSettings,
  run: { stats: RunStats; limiter: RateLimiter; budget: Budget; runStore: RunStore | undefined },
  writer: OutputWriter,
): Promise<{ result: BatchRunResult; output: OrderedOutput; failure: unknown }> {
  const { target, pace, clock } = settings;
  const startRow = settings.startRow ?? 1;
  const retryRows = settings.retryRows ?? [];
  const output = new OrderedOutput(writer, run.stats, { startRow, retry: retryRows });
  const { outputFailure, stop, detach } = stopSignals(settings, writer);
  let result: BatchRunResult;
  try {
    result = await runBatch(
      settings.rows,
      settings.prepare,
      senderFor(settings, { ...run, outputFailure: outputFailure.signal }),
      output,
      run.stats,
      {
        target,
        clock,
        claimWaitLimitMs: CLAIMS.waitLimitMs,
        batchSize: target.getOnly ? 1 : pace.batchSize,
        concurrency: pace.concurrency,
        maxHoldRows: Math.max(1_000, pace.batchSize * pace.concurrency * 4),
        dedupeCapacity: pace.dedupe ? DEDUPE_CAPACITY : 0,
        startRow,
        retryRows,
        signal: stop.signal,
        ...(run.runStore ? { kept: run.runStore.kept } : {}),
      },
    );
  } finally {
    detach();
    // An output that fails as it closes (a full disk) is a stop like any other: what the store
    // keeps is not lost, and the summary still says where the run got to.
    const closing: unknown = await writer.close().then(
      () => undefined,
      (error: unknown) => error,
    );
    if (closing !== undefined && !outputFailure.signal.aborted) outputFailure.abort(closing);
    // The counts and the next row are the file's: what a failure kept from it is not counted.
    output.takeBack(writer.unwritten?.() ?? []);
  }
  return { result, output, failure: outputFailure.signal.aborted ? (outputFailure.signal.reason as unknown) : undefined };
}

/** Records what the store answered, gives up the run's claims and share, and closes it; its failure, returned, is the caller's to report. */
function closeStore(runStore: RunStore | undefined, stats: RunStats, savedUsd: number): Promise<unknown> {
  return (runStore?.close(stats.fromStore, savedUsd) ?? Promise.resolve()).then(
    () => undefined,
    (error: unknown) => error,
  );
}

/**
 * One job through the service: rows in, one record per row out in input order, paced by the
 * service's windows, within the caps, with every paid answer kept in the store. The CLI and the
 * library both run their batches here; what only a terminal needs (progress, messages, signals,
 * exit codes) stays with them. Conditions that stop the run come back as `fatal`, never thrown,
 * once the writer is open: the summary always says where the run got to.
 */
export async function runJob(settings: JobSettings): Promise<JobOutcome> {
  const { target, clock } = settings;
  const sectionPrices = sectionPricesOf(target, settings.prices);
  const runStore = settings.store ? await openJobStore(settings.store, target, sectionPrices, clock, settings.events) : undefined;
  const stats = new RunStats(clock);
  let saved = 0;
  try {
    const budget = await budgetFor(settings, runStore);
    // The progress bar measures the read by bytes of the file (none for a pipe): no second read.
    stats.input = inputProgress(settings.rows);
    const limiter = await limiterFor(settings, runStore);
    const writer = await settings.openWriter();
    await settings.events?.started?.({ stats, limiter });
    const run = { stats, limiter, budget, runStore };
    const { result, output, failure } = await runRows(settings, run, writer);
    saved = result.savedByStore.usd;
    const outcome = await outcomeOf(settings, { ...run, output }, result, failure);
    const storeCloseFailure = await closeStore(runStore, stats, saved);
    return storeCloseFailure === undefined ? outcome : { ...outcome, storeCloseFailure };
  } catch (error) {
    await closeStore(runStore, stats, saved);
    throw error;
  }
}
