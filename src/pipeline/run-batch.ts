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

/** Items looked up in the store at once: one round trip a block, not one a row. */
const LOOKUP_BLOCK = 100;
/** How often items another job is buying are looked up again. */
const WAIT_POLL_MS = 250;

/** Hands over the records for the rows that share one answer: the item's own, then its duplicates'. */
function addRecords(output: OrderedOutput, pending: PendingItem, record: OutputRecord): void {
  output.add(record);
  for (const duplicate of pending.duplicates) {
    output.add({
      ...record,
      row: duplicate.row,
      input: duplicate.columns,
      ...(record.chunk ? { chunk: chunkForRow(record.chunk, duplicate), repeat: true } : {}),
    });
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

/**
 * The pipeline, free of any I/O choice: rows in, records out in input order. Reading pauses
 * whenever the senders are all busy or too many finished records wait for an earlier row, so
 * memory stays bounded by the batch size, concurrency and hold window, not by the input's size.
 * Batches are launched in the order of their first row and the limiter serves the earliest rows
 * first, so written rows trail answered ones by at most what is in flight.
 *
 * With a store (`kept`), each distinct item is looked up (a block at a time) before it is batched:
 * an item whose every section is kept is written from it; one that lacks some is batched with
 * items lacking the same sections and only those are bought; one that another job is buying waits
 * for that job's answer.
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
  const { target, kept } = options;
  const members = sectionKeys(target);
  const batcher = new Batcher(options.batchSize, options.maxHoldRows);
  const dedupe = options.dedupeCapacity > 0 ? new Deduplicator(options.dedupeCapacity) : undefined;
  const inFlight = new Set<Promise<void>>();
  const maxWaiting = options.maxHoldRows + options.concurrency * options.batchSize;
  const skip = alreadyWritten(options);
  const stopping = new AbortController();
  const onSignal = () => stopping.abort(options.signal?.reason);
  if (options.signal?.aborted) onSignal();
  options.signal?.addEventListener('abort', onSignal, { once: true });
  let fatal: unknown;
  /** Nothing new is launched (a budget's stop lets what it admitted finish; any other stop aborts `stopping` too). */
  const closed = () => fatal !== undefined || stopping.signal.aborted;
  const stop = (reason: unknown) => {
    fatal ??= reason;
    stopping.abort(reason);
  };
  /** An output that cannot be written stops the run: nothing more is bought for it. */
  const stopOnOutputFailure = () => {
    if (output.failure !== undefined) stop(output.failure);
  };
  const savedByStore: Saving = { sections: 0, usd: 0 };
  let storeFailed = false;
  kept?.failure.catch((error: unknown) => {
    storeFailed = true;
    stop(error);
  });

  /** The record of a row the store answers whole: the row's own meta, and the status of every section. */
  const keptRecord = (pending: PendingItem, chunk: Chunk): OutputRecord => {
    const own = chunkForRow(chunk, pending.prepared);
    return { row: pending.prepared.row, status: statusOf(own, members), input: pending.prepared.columns, chunk: own, kept: members };
  };

  const settle: Deliver = (part, records, answer) => {
    const released: { item: SendableItem; sections: readonly number[] }[] = [];
    part.forEach((pending, i) => {
      let record = records[i]!;
      const { plan } = pending;
      // Bought only what the store lacked: the row's chunk is the answer with the kept sections in.
      const merged = plan !== undefined && Object.keys(plan.kept).length > 0 && record.chunk !== undefined;
      if (merged && keepsAnswer(record)) {
        const chunk = withSections(record.chunk, members, plan.kept);
        record = { ...record, status: statusOf(chunk, members), chunk, kept: Object.keys(plan.kept) };
      }
      if (plan && !keepsAnswer(record)) released.push({ item: pending.prepared, sections: plan.sections });
      dedupe?.settle(
        pending,
        keepsAnswer(record) ? { chunk: record.chunk, status: record.status } : undefined,
        merged ? undefined : answer,
        i,
      );
      addRecords(output, pending, record);
    });
    if (released.length > 0) kept?.release(released);
    // Written as soon as their turn comes, whatever the reader is doing.
    if (output.ready) void output.flush().then(stopOnOutputFailure);
  };

  const notSent = (items: readonly PendingItem[]) => {
    const reason: unknown = fatal ?? stopping.signal.reason;
    settle(
      items,
      items.map(({ prepared }) => notSentRecord(prepared, reason)),
    );
  };

  /** Sends a batch once a sender is free: with a store, only the items whose sections it claims now (the others are looked up again). */
  const launch = async (batch: Batch) => {
    while (inFlight.size >= options.concurrency && !closed()) await Promise.race(inFlight);
    if (closed()) {
      notSent(batch.items);
      return;
    }
    const batchTarget = batch.sections ? partOfTarget(target, batch.sections) : target;
    // In flight from here, so that no other launch takes this sender while the claim is made.
    const task: Promise<void> = claimed(batch.items)
      .then((items): Promise<BatchOutcome> | BatchOutcome => (items.length === 0 ? {} : send(items, batchTarget, stopping.signal, settle)))
      .then(({ stop: reason, drain }) => {
        if (reason === undefined) return;
        fatal ??= reason;
        if (!drain) stopping.abort(reason);
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  /** Of a batch's items, those whose sections are now this run's; the rest wait to be looked up again. */
  const claimed = async (items: readonly PendingItem[]): Promise<readonly PendingItem[]> => {
    if (!kept) return items;
    let mine: boolean[];
    try {
      mine = await kept.claim(items.map(({ prepared, plan, force }) => ({ item: prepared, sections: plan!.sections, force })));
    } catch (error) {
      storeFailed = true;
      stop(error);
      notSent(items);
      return [];
    }
    items.forEach((pending, i) => {
      if (!mine[i]) wait(pending);
    });
    return items.filter((_, i) => mine[i]);
  };

  /** Items another job is sending: looked up again every WAIT_POLL_MS until they are kept or free to buy. */
  const waiting: PendingItem[] = [];
  /** When each waiting item began to wait: past claimWaitLimitMs, it is bought whoever holds it. */
  const waitingSince = new Map<PendingItem, number>();
  let polling: Promise<void> | undefined;
  const wait = (pending: PendingItem) => {
    if (!waitingSince.has(pending)) waitingSince.set(pending, options.clock.now());
    waiting.push(pending);
    if (polling) return;
    // Items left waiting as a poll ends (put back by a launch meanwhile) start the next one.
    polling = poll().finally(() => {
      polling = undefined;
      if (waiting.length > 0) wait(waiting.pop()!);
    });
  };

  /** What the store said of an item: written from it, batched to buy what it lacks, or left to wait. */
  const apply = async (pending: PendingItem, resolution: Resolution, into: Batcher): Promise<void> => {
    if (resolution.kind === 'wait') {
      const since = waitingSince.get(pending);
      if (since === undefined || options.clock.now() - since < (options.claimWaitLimitMs ?? Infinity)) {
        wait(pending);
        return;
      }
      pending.force = true;
      resolution = resolution.purchase;
    }
    waitingSince.delete(pending);
    savedByStore.sections += resolution.saving.sections;
    savedByStore.usd += resolution.saving.usd;
    if (resolution.kind === 'kept') {
      stats.fromStore += 1;
      const record = keptRecord(pending, resolution.chunk);
      dedupe?.settle(pending, { chunk: record.chunk!, status: record.status });
      addRecords(output, pending, record);
      return;
    }
    // A wait already counted what the store keeps of it.
    if (pending.plan === undefined && resolution.sections.length < members.length) stats.partlyFromStore += 1;
    pending.plan = { sections: resolution.sections, kept: resolution.kept };
    for (const batch of into.add(pending)) await launch(batch);
  };

  const resolve = async (items: readonly PendingItem[], into: Batcher): Promise<void> => {
    if (items.length === 0) return;
    if (!kept) {
      for (const pending of items) for (const batch of into.add(pending)) await launch(batch);
      return;
    }
    let resolutions: Resolution[];
    try {
      resolutions = await kept.resolve(items.map((pending) => pending.prepared));
    } catch (error) {
      storeFailed = true;
      stop(error);
      notSent(items);
      return;
    }
    for (const [i, pending] of items.entries()) await apply(pending, resolutions[i]!, into);
  };

  async function poll(): Promise<void> {
    while (waiting.length > 0 && !closed()) {
      try {
        await options.clock.sleep(WAIT_POLL_MS, stopping.signal);
      } catch {
        break;
      }
      // What is free to buy now goes out at once, in batches of its own.
      const now = new Batcher(options.batchSize, Number.MAX_SAFE_INTEGER);
      await resolve(waiting.splice(0), now);
      for (const batch of now.flush()) await launch(batch);
    }
    if (closed()) notSent(waiting.splice(0));
  }

  // A read error (an unclosed quote) ends the input, not the run: the rows read before it are
  // valid and still go out, so the output is whole up to the bad line. Only the reader's errors
  // are caught here; a failing output must stop the run before more is paid for.
  const reader = rows[Symbol.asyncIterator]();
  let readError: unknown;
  let block: PendingItem[] = [];
  const resolveBlock = async () => {
    const items = block;
    block = [];
    await resolve(items, batcher);
  };
  try {
    for (;;) {
      if (closed()) {
        await reader.return?.();
        break;
      }
      let next: IteratorResult<InputRow>;
      try {
        next = await reader.next();
      } catch (error) {
        readError = error;
        break;
      }
      if (next.done) break;
      const row = next.value;
      if (skip(row.row)) continue;
      stats.rowsRead += 1;
      const prepared = prepare(row);
      if (!prepared.item) {
        output.add({ row: prepared.row, status: 'invalid_input', error: prepared.invalid ?? 'invalid input', input: prepared.columns });
      } else {
        const sendable = prepared as SendableItem;
        const decision = dedupe ? dedupe.decide(sendable) : { kind: 'send' as const, pending: { prepared: sendable, duplicates: [] } };
        if (decision.kind === 'send') {
          block.push(decision.pending);
          if (block.length >= LOOKUP_BLOCK) await resolveBlock();
        } else if (decision.kind === 'answered') {
          const { chunk, status } = decision.answer;
          output.add({ row: sendable.row, status, input: sendable.columns, chunk: chunkForRow(chunk, sendable), repeat: true });
        }
      }
      while (output.waiting > maxWaiting && (inFlight.size > 0 || polling))
        await Promise.race([...inFlight, ...(polling ? [polling] : [])]);
      if (output.ready) {
        await output.flush();
        stopOnOutputFailure();
      }
    }

    if (closed()) notSent(block.splice(0));
    else await resolveBlock();
    // What this run holds goes out first: another job waiting for it must never wait on this run's waits.
    for (const batch of batcher.flush()) await launch(batch);
    // A launch may put items back to wait, and a poll may launch more.
    while (polling || inFlight.size > 0) await (polling ?? Promise.all(inFlight));
  } finally {
    options.signal?.removeEventListener('abort', onSignal);
  }
  const interrupted = Boolean(options.signal?.aborted) && fatal === undefined;
  // Every answer handed to the store is kept before the output decides where it may end.
  if (kept) await kept.flush().catch(() => (storeFailed = true));
  const endsAtGap = kept !== undefined && !storeFailed;
  await output.finish(endsAtGap);
  return { fatal: fatal ?? readError, interrupted, componentsSaved: dedupe?.saved ?? 0, savedByStore, endsAtGap };
}
