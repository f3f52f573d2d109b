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
import { sendBatch, type Exchange, type Pacer } from '../pipeline/send-batch.js';
import { completedOutcome, summarize, type RunSummary } from '../pipeline/summary.js';
import type { StoreError } from '../errors/index.js';
import type { StoreProblems } from '../store/store-api.js';
import type { Clock } from '../throttle/clock.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';
import { budgetLimits, type SpendingCaps } from './budget-limits.js';
import type { Service as Sender } from '../client/service-client.js';
import type { Service } from './connect.js';
import type { JobIdentity } from './job-names.js';
import type { RunStore } from './run-store.js';
import { openSession, type Session, type SessionStore } from './session.js';

/**
 * Distinct answers kept for deduplication: repeats within 5,000 distinct items are caught, and
 * memory stays flat. They are the largest part of a run's live memory: 10,000 put a million-row
 * run at 1.3 times a small run's peak, 5,000 at 1.2 (BENCHMARKS.md, memory).
 */
export const DEDUPE_CAPACITY = 5_000;

/** The store a job keeps its answers, spend and pacing in: its session's, with the job's own reuse. */
export interface JobStore extends SessionStore, JobReuse {}

/** What a job reuses of the store beyond what its session does. */
export interface JobReuse {
  /** The job the run continues: what it bought since that job began is reused whatever maxAgeMs says. */
  job?: string | JobIdentity;
  /** An answer younger than this is reused; undefined: age alone never makes one reusable. */
  maxAgeMs?: number;
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

/**
 * A job on a session (runOnSession): what it reads and writes, its caps and how it sends, without
 * what the session holds (the service, the store, the pacer, the clock).
 */
export interface SessionJob extends Omit<JobSettings, 'service' | 'store' | 'pace' | 'clock'> {
  /** Undefined: its session's maxAge-less default (nothing reused but what this job buys while it waits). */
  reuse?: JobReuse;
  pace: Omit<JobPace, 'ratePerMinute'>;
  /** The session's sender with this job's own options (a library call's deadline); default the session's. */
  client?: Sender;
  /** How the job takes its turns at the session's limiter (the gateway's fair queue); default: in row order, within pace.maxWaitMs. */
  turns?: (limiter: RateLimiter) => Pacer;
  /** What the store answered is recorded by the caller, not the job (the gateway sums it per key: SpendBook). */
  callerRecordsReuse?: boolean;
  /** A budget too small for one item does not stop the job before it starts: the store still answers what it holds (the gateway's). */
  storeAnswersPastBudget?: boolean;
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
  /** USD at list price the store's answers saved, unrounded (the summary's is in cents). */
  savedUsd: number;
  /** The store failed as it closed, after the run: its answers were kept, its last notes may not be. */
  storeCloseFailure?: unknown;
}

function addCounts(a: Record<Status, number>, b: Record<Status, number>): Record<Status, number> {
  return Object.fromEntries(STATUSES.map((status) => [status, a[status] + b[status]])) as Record<Status, number>;
}

/** The run's caps as one budget; a budget below one item's price stops the job before anything is opened. */
async function budgetFor(job: SessionJob, runStore: RunStore | undefined): Promise<Budget> {
  const { target } = job;
  const monthToDate = runStore && job.caps.maxCostMonth !== undefined ? await runStore.monthToDateCost() : 0;
  const budget = new Budget(
    budgetLimits(job.caps, () => monthToDate),
    {
      components: target.componentsPerItem,
      price: pricePerItem(target, job.prices),
    },
  );
  const tooSmall = job.storeAnswersPastBudget ? undefined : budget.tooSmallForOneItem();
  if (tooSmall) throw tooSmall;
  return budget;
}

/** The session's limiter as a job waits on it: in row order, a wait for a window bounded by the job's own limit. */
function turnsWithin(limiter: RateLimiter, maxWaitMs: number): Pacer {
  return {
    grants: (components, options) => limiter.grants(components, { ...options, maxWaitMs }),
    observe: (reservation, reported) => limiter.observe(reservation, reported),
    refund: (reservation) => limiter.refund(reservation),
    pauseUntil: (until) => limiter.pauseUntil(until),
    serviceClock: limiter.serviceClock,
  };
}

/**
 * What stops the run: the caller's signal, and the output failing (a reader closing the pipe, a
 * full disk, a lost lock), which stops it at once, not at the next write. `detach` when the run is over.
 */
function stopSignals(settings: SessionJob, writer: OutputWriter) {
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

/** The parts of a job's run: the session's, its counters, its budget and its store. */
interface JobRun {
  session: Session;
  stats: RunStats;
  budget: Budget;
  runStore: RunStore | undefined;
}

/** How the pipeline sends a batch: sendBatch with the session's pacer, the job's retry policy and budget, every answer recorded. */
function senderFor(job: SessionJob, run: JobRun & { outputFailure: AbortSignal }): SendFunction {
  const { pace, events } = job;
  const { runStore, stats, session } = run;
  const { clock } = session;
  const sectionPrices = sectionPricesOf(job.target, job.prices);
  const limiter = job.turns?.(session.limiter) ?? turnsWithin(session.limiter, pace.maxWaitMs);
  return (items, batchTarget, signal, deliver) =>
    sendBatch(
      items,
      batchTarget,
      {
        client: job.client ?? session.service.client,
        limiter,
        sectionPrices,
        retry: { ...DEFAULT_RETRY_POLICY, maxRetries: pace.maxRetries, maxWaitMs: pace.maxWaitMs },
        stats,
        clock,
        signal,
        ...(runStore && job.finishInFlightOnOutputFailure ? {} : { abandon: run.outputFailure }),
        budget: run.budget,
        ...(job.oneItemGet ? { oneItemGet: true } : {}),
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
  settings: SessionJob,
  run: JobRun & { output: OrderedOutput },
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
  const summary = summarize(stats, run.session.limiter, verdict, {
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
    savedUsd: result.savedByStore.usd,
    outputFailed: failure !== undefined,
    ...(runStore ? { storeProblems: runStore.problems() } : {}),
  };
}

/** The rows through the pipeline into the opened writer; the writer closed whatever happens, and its failure kept as the run's. */
async function runRows(
  settings: SessionJob,
  run: JobRun,
  writer: OutputWriter,
): Promise<{ result: BatchRunResult; output: OrderedOutput; failure: unknown }> {
  const { target, pace } = settings;
  const { clock } = run.session;
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

/** Records what the store answered and gives up the job's claims; its failure, returned, is the caller's to report. */
function closeStore(runStore: RunStore | undefined, fromStore: number, savedUsd: number): Promise<unknown> {
  return (runStore?.close(fromStore, savedUsd) ?? Promise.resolve()).then(
    () => undefined,
    (error: unknown) => error,
  );
}

/**
 * One job on a session: rows in, one record per row out in input order, paced by the session's
 * limiter, within the caps, with every paid answer kept in the session's store. The CLI, the
 * library and the gateway all run their jobs here; what only a terminal needs (progress, messages,
 * signals, exit codes) stays with them. Conditions that stop the run come back as `fatal`, never
 * thrown, once the writer is open: the summary always says where the run got to.
 */
export async function runOnSession(session: Session, job: SessionJob): Promise<JobOutcome> {
  const { target } = job;
  const runStore = await session.runs?.openRun({
    target,
    maxAgeMs: job.reuse?.maxAgeMs,
    ...(job.reuse?.job !== undefined ? { job: job.reuse.job } : {}),
    prices: sectionPricesOf(target, job.prices),
    ...(job.oneItemGet ? { oneItem: true } : {}),
  });
  const stats = new RunStats(session.clock);
  let saved = 0;
  const reuse = (): [number, number] => (job.callerRecordsReuse ? [0, 0] : [stats.fromStore, saved]);
  try {
    const budget = await budgetFor(job, runStore);
    // The progress bar measures the read by bytes of the file (none for a pipe): no second read.
    stats.input = inputProgress(job.rows);
    const writer = await job.openWriter();
    await job.events?.started?.({ stats, limiter: session.limiter });
    const run: JobRun = { session, stats, budget, runStore };
    const { result, output, failure } = await runRows(job, run, writer);
    saved = result.savedByStore.usd;
    const outcome = await outcomeOf(job, { ...run, output }, result, failure);
    const storeCloseFailure = await closeStore(runStore, ...reuse());
    return storeCloseFailure === undefined ? outcome : { ...outcome, storeCloseFailure };
  } catch (error) {
    await closeStore(runStore, ...reuse());
    throw error;
  }
}

/** A job's store as its session's: the session's part, without what is the job's own. */
function sessionStoreOf({ job: _job, maxAgeMs: _maxAgeMs, ...store }: JobStore): SessionStore {
  return store;
}

/**
 * One job on a session of its own (the CLI's: one job a process): the session opened for it,
 * the job run, the session closed. A failure to close the store is the outcome's, not thrown.
 */
export async function runJob(settings: JobSettings): Promise<JobOutcome> {
  const { service, store, pace, clock, events, ...job } = settings;
  const session = await openSession({
    service,
    ...(store ? { store: sessionStoreOf(store) } : {}),
    clock,
    ratePerMinute: pace.ratePerMinute,
    maxWaitMs: pace.maxWaitMs,
    storeLost: (reason, waitMs) => events?.storeLost?.(reason, waitMs),
    storeBack: (afterMs, journaled) => events?.storeBack?.(afterMs, journaled),
  });
  let outcome: JobOutcome;
  try {
    outcome = await runOnSession(session, { ...job, pace, ...(events ? { events } : {}), ...(store ? { reuse: store } : {}) });
  } catch (error) {
    await session.close().catch(() => undefined);
    throw error;
  }
  const closing: unknown = await session.close().then(
    () => undefined,
    (error: unknown) => error,
  );
  return closing === undefined || outcome.storeCloseFailure !== undefined ? outcome : { ...outcome, storeCloseFailure: closing };
}
