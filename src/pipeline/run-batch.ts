import { setMaxListeners } from 'node:events';
import type { Batch, PendingItem, SendableItem } from '../batching/batch.js';
import { Batcher } from '../batching/batcher.js';
import { chunkForRow, Deduplicator } from '../batching/deduplicator.js';
import type { InputRow, PreparedItem } from '../input/row.js';
import type { Chunk } from '../model/chunk.js';
import { withSections } from '../model/chunk-frame.js';
import { partOfTarget, sectionKeys, type QueryTarget } from '../model/query-target.js';
import { keepsAnswer, notSentRecord, type OutputRecord } from '../model/record.js';
import { statusOf } from '../model/status.js';
import type { Clock } from '../throttle/clock.js';
import type { KeptAnswers, Resolution, Saving } from './kept-answers.js';
import type { OrderedOutput } from './ordered-output.js';
import type { RunStats } from './run-stats.js';
import type { BatchOutcome, Deliver } from './send-batch.js';
import { CLAIMS, STORE_LOOKAHEAD } from '../policy/policy.js';

export interface BatchRunOptions {
  /** What every row asks: the endpoint, or the components of an mget. */
  target: QueryTarget;
  batchSize: number;
  concurrency: number;
  /** How far behind the newest row a partial batch may wait for more items of its key set. */
  maxHoldRows: number;
  /** Distinct answers remembered for deduplication; 0 turns deduplication off. */
  dedupeCapacity: number;
  /** Rows before this one are already in the output (--resume): read past them, send nothing... */
  startRow?: number;
  /** ...except these (ascending), whose earlier records are `error` or `not_sent`: they are sent again. */
  retryRows?: readonly number[];
  /** Aborted on Ctrl-C or SIGTERM: stop reading and sending, let requests in flight finish. */
  signal?: AbortSignal;
  /** The answers the account has paid for (the store): what it keeps is written from it, not bought. */
  kept?: KeptAnswers;
  /** The run's clock: items waiting for another job's answer are looked up again on it. */
  clock: Clock;
  /** How long an item waits for another job's answer before this run buys it itself (taking the claim over). */
  claimWaitLimitMs?: number;
}

export interface BatchRunResult {
  /** The condition that stopped sending (authentication, credit, budget, the store...), if one did. */
  fatal?: unknown;
  interrupted: boolean;
  /** Components not spent thanks to deduplication. */
  componentsSaved: number;
  /** Billable sections the store answered instead of the service (each item once), and their list price. */
  savedByStore: Saving;
  /** Whether the output may end at the first row not sent: the store keeps every answer after it. */
  endsAtGap: boolean;
}

/** Sends one batch for `target` (the run's, or the part of it its items lack), delivering records part by part. Never throws: see sendBatch. */
export type SendFunction = (
  items: readonly PendingItem[],
  target: QueryTarget,
  signal: AbortSignal,
  deliver: Deliver,
) => Promise<BatchOutcome>;

/** Abort listeners a request in flight may hold on the run's stop at once (the pacer's queue, the exchange, a retry's sleep). */
export const LISTENERS_PER_REQUEST = 3;

/** Items looked up in the store at once (STORE_LOOKAHEAD): one round trip a block, not one a row (an estimate looks them up alike). */
export const LOOKUP_BLOCK = STORE_LOOKAHEAD.blockItems;

/**
 * Blocks looked up at once as rows are read, each applied in its turn (STORE_LOOKAHEAD): a rerun
 * from a database waited for each block's round trip before reading on (a third of its time idle).
 */
const LOOKUPS_IN_FLIGHT = STORE_LOOKAHEAD.blocksInFlight;

/** Hands over the records for the rows that share one answer: the item's own, then its duplicates'. */
function addRecords(output: OrderedOutput, pending: PendingItem, record: OutputRecord, kept?: Promise<void>): void {
  output.add(record, kept);
  for (const duplicate of pending.duplicates) {
    output.add(
      {
        ...record,
        row: duplicate.row,
        input: duplicate.columns,
        ...(record.chunk ? { chunk: chunkForRow(record.chunk, duplicate), repeat: true } : {}),
      },
      kept,
    );
  }
}

/** Whether a row is read past: already in the output, and not one to send again. */
function alreadyWritten(options: BatchRunOptions): (row: number) => boolean {
  const startRow = options.startRow ?? 1;
  const retry = options.retryRows ?? [];
  let at = 0;
  return (row) => {
    if (row >= startRow) return false;
    while (at < retry.length && retry[at]! < row) at += 1;
    return retry[at] !== row;
  };
}

/** What a run needs at hand wherever it is: its options and parts, and the state every stage reads. */
class BatchRun {
  readonly members: readonly string[];
  readonly batcher: Batcher;
  readonly dedupe: Deduplicator | undefined;
  readonly inFlight = new Set<Promise<void>>();
  readonly stopping = new AbortController();
  readonly savedByStore: Saving = { sections: 0, usd: 0 };
  /** The condition that stopped sending, if one did. */
  fatal: unknown;
  storeFailed = false;
  /** Items another job is sending: looked up again every CLAIMS.waitPollMs until they are kept or free to buy. */
  readonly waiting: PendingItem[] = [];
  /** When each waiting item began to wait: past claimWaitLimitMs, it is bought whoever holds it. */
  readonly waitingSince = new Map<PendingItem, number>();
  polling: Promise<void> | undefined;

  readonly send: SendFunction;
  readonly output: OrderedOutput;
  readonly stats: RunStats;
  readonly options: BatchRunOptions;

  constructor(send: SendFunction, output: OrderedOutput, stats: RunStats, options: BatchRunOptions) {
    this.send = send;
    this.output = output;
    this.stats = stats;
    this.options = options;
    this.members = sectionKeys(options.target);
    // Each request in flight listens for the stop while it waits for the pacer, then while it is
    // sent: Node's warning at 11 listeners (a leak's sign) would be printed at --concurrency 6.
    setMaxListeners(LISTENERS_PER_REQUEST * options.concurrency + 10, this.stopping.signal);
    this.batcher = new Batcher(options.batchSize, options.maxHoldRows);
    this.dedupe = options.dedupeCapacity > 0 ? new Deduplicator(options.dedupeCapacity) : undefined;
    options.kept?.failure.catch((error: unknown) => {
      this.storeFailed = true;
      this.stop(error);
    });
  }

  /** Nothing new is launched (a budget's stop lets what it admitted finish; any other stop aborts `stopping` too). */
  closed(): boolean {
    return this.fatal !== undefined || this.stopping.signal.aborted;
  }

  stop(reason: unknown): void {
    this.fatal ??= reason;
    this.stopping.abort(reason);
  }

  /** An output that cannot be written stops the run: nothing more is bought for it. */
  stopOnOutputFailure(): void {
    if (this.output.failure !== undefined) this.stop(this.output.failure);
  }

  /** The record of a row the store answers whole: the row's own meta, and the status of every section. */
  keptRecord(pending: PendingItem, chunk: Chunk): OutputRecord {
    const own = chunkForRow(chunk, pending.prepared);
    return {
      row: pending.prepared.row,
      status: statusOf(own, this.members),
      input: pending.prepared.columns,
      chunk: own,
      kept: this.members,
    };
  }

  /** A part's records, as sendBatch delivers them: merged with what the store kept, remembered for repeats, written in their turn. */
  readonly settle: Deliver = (part, records, answer) => {
    const released: { item: SendableItem; sections: readonly number[] }[] = [];
    // The part's answers were handed to the store as they came in (onResponse): its rows wait for them.
    const kept = this.options.kept?.written?.();
    part.forEach((pending, i) => {
      let record = records[i]!;
      const { plan } = pending;
      // Bought only what the store lacked: the row's chunk is the answer with the kept sections in.
      const merged = plan !== undefined && Object.keys(plan.kept).length > 0 && record.chunk !== undefined;
      if (merged && keepsAnswer(record)) {
        const chunk = withSections(record.chunk, this.members, plan.kept);
        record = { ...record, status: statusOf(chunk, this.members), chunk, kept: Object.keys(plan.kept) };
      }
      if (plan && !keepsAnswer(record)) released.push({ item: pending.prepared, sections: plan.sections });
      this.dedupe?.settle(
        pending,
        keepsAnswer(record) ? { chunk: record.chunk, status: record.status } : undefined,
        merged ? undefined : answer,
        i,
      );
      addRecords(this.output, pending, record, keepsAnswer(record) ? kept : undefined);
    });
    if (released.length > 0) this.options.kept?.release(released);
    // Written as soon as their turn comes, whatever the reader is doing.
    if (this.output.ready) void this.output.flush().then(() => this.stopOnOutputFailure());
  };

  notSent(items: readonly PendingItem[]): void {
    const reason: unknown = this.fatal ?? this.stopping.signal.reason;
    this.settle(
      items,
      items.map(({ prepared }) => notSentRecord(prepared, reason)),
    );
  }
}

/** Sends a batch once a sender is free: with a store, only the items whose sections it claims now (the others are looked up again). */
async function launch(run: BatchRun, batch: Batch): Promise<void> {
  const { inFlight, options } = run;
  while (inFlight.size >= options.concurrency && !run.closed()) await Promise.race(inFlight);
  if (run.closed()) {
    run.notSent(batch.items);
    return;
  }
  const batchTarget = batch.sections ? partOfTarget(options.target, batch.sections) : options.target;
  // In flight from here, so that no other launch takes this sender while the claim is made, and until
  // the batch's answers are in the store: however far a store that writes in the background (a
  // database) lags behind the service, a kill -9 costs at most the requests in flight.
  const task: Promise<void> = claimed(run, batch.items)
    .then(async (items) => {
      if (items.length === 0) return;
      const { stop: reason, drain } = await run.send(items, batchTarget, run.stopping.signal, run.settle);
      if (reason !== undefined) {
        run.fatal ??= reason;
        if (!drain) run.stopping.abort(reason);
      }
      await options.kept?.written?.();
    })
    .finally(() => inFlight.delete(task));
  inFlight.add(task);
}

/** Claims the items' sections, but for those whose forced claim was refused already: they pass unclaimed (apply). */
async function claimOrPass(kept: KeptAnswers, items: readonly PendingItem[]): Promise<boolean[]> {
  const asked = items.filter((pending) => !pending.unclaimed);
  const claimed =
    asked.length === 0
      ? []
      : await kept.claim(asked.map(({ prepared, plan, force }) => ({ item: prepared, sections: plan!.sections, force })));
  let next = 0;
  return items.map((pending) => pending.unclaimed === true || claimed[next++]!);
}

/** Of a batch's items, those whose sections are now this run's; the rest wait to be looked up again. */
async function claimed(run: BatchRun, items: readonly PendingItem[]): Promise<readonly PendingItem[]> {
  const { kept } = run.options;
  if (!kept) return items;
  let mine: boolean[];
  try {
    mine = await claimOrPass(kept, items);
  } catch (error) {
    run.storeFailed = true;
    run.stop(error);
    run.notSent(items);
    return [];
  }
  items.forEach((pending, i) => {
    if (mine[i]) run.waitingSince.delete(pending);
    else wait(run, pending);
  });
  return items.filter((_, i) => mine[i]);
}

/** Puts an item to wait for another job's answer, and starts looking again if no one is. */
function wait(run: BatchRun, pending: PendingItem): void {
  if (!run.waitingSince.has(pending)) run.waitingSince.set(pending, run.options.clock.now());
  run.waiting.push(pending);
  if (run.polling) return;
  // Items left waiting as a poll ends (put back by a launch meanwhile) start the next one.
  run.polling = poll(run).finally(() => {
    run.polling = undefined;
    if (run.waiting.length > 0) wait(run, run.waiting.pop()!);
  });
}

/** Looks the waiting items up again every CLAIMS.waitPollMs: what is free to buy now goes out at once, in batches of its own. */
async function poll(run: BatchRun): Promise<void> {
  while (run.waiting.length > 0 && !run.closed()) {
    try {
      await run.options.clock.sleep(CLAIMS.waitPollMs, run.stopping.signal);
    } catch {
      break;
    }
    const now = new Batcher(run.options.batchSize, Number.MAX_SAFE_INTEGER);
    await resolve(run, run.waiting.splice(0), now);
    for (const batch of now.flush()) await launch(run, batch);
  }
  if (run.closed()) run.notSent(run.waiting.splice(0));
}

/**
 * What the store said of an item: written from it, batched to buy what it lacks, or left to wait.
 * An item's wait is counted from its first (a claim refused, then a lookup, then a claim refused
 * again is one wait) until it is written or sent. Past the limit its claim is forced; a forced claim
 * refused (the store said kept) while the store still does not answer the item means the store
 * contradicts itself: the item is then bought unclaimed rather than looked up forever (PROTOCOL.md, rule 6).
 */
function apply(run: BatchRun, pending: PendingItem, resolution: Resolution, into: Batcher): Promise<void> | undefined {
  const since = run.waitingSince.get(pending);
  const overdue = since !== undefined && run.options.clock.now() - since >= (run.options.claimWaitLimitMs ?? Infinity);
  if (resolution.kind === 'wait') {
    if (!overdue) {
      wait(run, pending);
      return undefined;
    }
    resolution = resolution.purchase;
  }
  if (resolution.kind !== 'kept' && overdue) {
    if (pending.force) pending.unclaimed = true;
    pending.force = true;
  }
  if (resolution.kind === 'kept') {
    run.waitingSince.delete(pending);
    writeKept(run, pending, resolution);
    return undefined;
  }
  run.savedByStore.sections += resolution.saving.sections;
  run.savedByStore.usd += resolution.saving.usd;
  // A wait already counted what the store keeps of it.
  if (pending.plan === undefined && resolution.sections.length < run.members.length) run.stats.partlyFromStore += 1;
  pending.plan = { sections: resolution.sections, kept: resolution.kept };
  const batches = into.add(pending);
  return batches.length === 0 ? undefined : launchAll(run, batches);
}

/** A row the store answered whole, written and counted as the store's (a repeat of one too: the store answered it again). */
function writeKept(run: BatchRun, pending: PendingItem, kept: Extract<Resolution, { kind: 'kept' }>): void {
  run.stats.fromStore += 1;
  run.savedByStore.sections += kept.saving.sections;
  run.savedByStore.usd += kept.saving.usd;
  run.dedupe?.answeredByStore(pending);
  addRecords(run.output, pending, run.keptRecord(pending, kept.chunk));
}

async function launchAll(run: BatchRun, batches: readonly Batch[]): Promise<void> {
  for (const batch of batches) await launch(run, batch);
}

/** What a lookup found, applied when its turn comes (lookUp). */
type Found = () => Promise<void>;

/**
 * Items to send, looked up in the store first (a block at a time) when there is one: the lookup
 * starts now, and what it found is applied (written, batched, put to wait) once the caller calls it.
 */
async function lookUp(run: BatchRun, items: readonly PendingItem[], into: Batcher): Promise<Found> {
  const { kept } = run.options;
  if (items.length === 0 || !kept)
    return async () => {
      for (const pending of items) for (const batch of into.add(pending)) await launch(run, batch);
    };
  try {
    const resolutions = await kept.resolve(items.map((pending) => pending.prepared));
    return async () => {
      for (const [i, pending] of items.entries()) {
        // An item written from the store is applied at once, not a microtask later.
        const launching = apply(run, pending, resolutions[i]!, into);
        if (launching) await launching;
      }
    };
  } catch (error) {
    return () => {
      run.storeFailed = true;
      run.stop(error);
      run.notSent(items);
      return Promise.resolve();
    };
  }
}

async function resolve(run: BatchRun, items: readonly PendingItem[], into: Batcher): Promise<void> {
  await (
    await lookUp(run, items, into)
  )();
}

/** One row read: an invalid one written as such, a repeat answered as its first, any other put in the block to look up. */
function take(run: BatchRun, row: InputRow, prepare: (row: InputRow) => PreparedItem, block: PendingItem[]): void {
  run.stats.rowsRead += 1;
  const prepared = prepare(row);
  if (!prepared.item) {
    run.output.add({ row: prepared.row, status: 'invalid_input', error: prepared.invalid ?? 'invalid input', input: prepared.columns });
    return;
  }
  const sendable = prepared as SendableItem;
  const decision = run.dedupe ? run.dedupe.decide(sendable) : { kind: 'send' as const, pending: { prepared: sendable, duplicates: [] } };
  if (decision.kind === 'send') {
    block.push(decision.pending);
  } else if (decision.kind === 'answered') {
    const { chunk, status } = decision.answer;
    run.output.add({ row: sendable.row, status, input: sendable.columns, chunk: chunkForRow(chunk, sendable), repeat: true });
  }
}

/**
 * Reads the rows until their end, a stop or a read error (returned: the rows before it are valid and
 * still go out, so the output is whole up to the bad line). Reading pauses while too many records wait
 * for an earlier row; finished records are written as reading goes.
 */
async function readAll(run: BatchRun, rows: AsyncIterable<InputRow>, prepare: (row: InputRow) => PreparedItem): Promise<unknown> {
  const { output, options } = run;
  const maxWaiting = options.maxHoldRows + options.concurrency * options.batchSize;
  const skip = alreadyWritten(options);
  const reader = rows[Symbol.asyncIterator]();
  const block: PendingItem[] = [];
  // Blocks being looked up, oldest first (LOOKUPS_IN_FLIGHT).
  const lookups: Promise<Found>[] = [];
  let readError: unknown;
  for (;;) {
    if (run.closed()) {
      await reader.return?.();
      break;
    }
    let next: IteratorResult<InputRow>;
    try {
      next = await reader.next();
    } catch (error) {
      // Only the reader's errors are caught here: a failing output must stop the run before more is paid for.
      readError = error;
      break;
    }
    if (next.done) break;
    if (skip(next.value.row)) continue;
    take(run, next.value, prepare, block);
    if (block.length >= LOOKUP_BLOCK) lookups.push(lookUp(run, block.splice(0), run.batcher));
    if (lookups.length >= LOOKUPS_IN_FLIGHT) await (await lookups.shift()!)();
    while (output.waiting > maxWaiting && (run.inFlight.size > 0 || run.polling))
      await Promise.race([...run.inFlight, ...(run.polling ? [run.polling] : [])]);
    if (output.ready) {
      await output.flush();
      run.stopOnOutputFailure();
    }
  }
  for (const found of lookups.splice(0)) await (await found)();
  if (run.closed()) run.notSent(block.splice(0));
  else await resolve(run, block.splice(0), run.batcher);
  return readError;
}

/**
 * The pipeline, free of any I/O choice: rows in, records out in input order. Reading pauses
 * whenever the senders are all busy or too many finished records wait for an earlier row, so
 * memory stays bounded by the batch size, concurrency and hold window, not by the input's size.
 * Batches are launched in the order of their first row and the limiter serves the earliest rows
 * first, so written rows trail answered ones by at most what is in flight.
 *
 * With a store (`kept`), each distinct item is looked up (a block at a time, a few blocks at
 * once) before it is batched: an item whose every section is kept is written from it; one that
 * lacks some is batched with items lacking the same sections and only those are bought, claimed as
 * their batch is sent; one that another job is sending waits for that job's answer
 * (store/PROTOCOL.md).
 *
 * A stop (a signal, or a condition met while sending: credit, budget, quota, a failing store) ends
 * reading and sending at once; requests in flight finish and their answers are kept and written.
 * With a store the output then ends before the first row never sent (`endsAtGap`): the answers
 * after it are in the store, and the next run takes them free. Without one, such rows are written
 * as `not_sent` where an answered row follows them.
 */
export async function runBatch(
  rows: AsyncIterable<InputRow>,
  prepare: (row: InputRow) => PreparedItem,
  send: SendFunction,
  output: OrderedOutput,
  stats: RunStats,
  options: BatchRunOptions,
): Promise<BatchRunResult> {
  const run = new BatchRun(send, output, stats, options);
  const onSignal = () => run.stopping.abort(options.signal?.reason);
  if (options.signal?.aborted) onSignal();
  options.signal?.addEventListener('abort', onSignal, { once: true });
  let readError: unknown;
  try {
    readError = await readAll(run, rows, prepare);
    // What this run holds goes out first: another job waiting for it must never wait on this run's waits.
    for (const batch of run.batcher.flush()) await launch(run, batch);
    // A launch may put items back to wait, and a poll may launch more.
    while (run.polling || run.inFlight.size > 0) await (run.polling ?? Promise.all(run.inFlight));
  } finally {
    options.signal?.removeEventListener('abort', onSignal);
  }
  const interrupted = Boolean(options.signal?.aborted) && run.fatal === undefined;
  // Every answer handed to the store is kept before the output decides where it may end.
  if (options.kept) await options.kept.flush().catch(() => (run.storeFailed = true));
  const endsAtGap = options.kept !== undefined && !run.storeFailed;
  await output.finish(endsAtGap);
  return { fatal: run.fatal ?? readError, interrupted, componentsSaved: run.dedupe?.saved ?? 0, savedByStore: run.savedByStore, endsAtGap };
}
