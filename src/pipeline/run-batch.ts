import type { Batch, PendingItem, SendableItem } from '../batching/batch.js';
import { Batcher } from '../batching/batcher.js';
import { chunkForRow, Deduplicator } from '../batching/deduplicator.js';
import type { InputRow, PreparedItem } from '../input/row.js';
import type { Chunk } from '../model/chunk.js';
import { keepsAnswer, type OutputRecord } from '../model/record.js';
import { statusOf } from '../model/status.js';
import type { OrderedOutput } from './ordered-output.js';
import type { RunStats } from './run-stats.js';
import type { BatchOutcome, Deliver } from './send-batch.js';

export interface BatchRunOptions {
  batchSize: number;
  concurrency: number;
  /** How far behind the newest row a partial batch may wait for more items of its key set. */
  maxHoldRows: number;
  /** Distinct answers remembered for deduplication; 0 turns deduplication off. */
  dedupeCapacity: number;
  /** Rows before this one are already in the output (--resume): read past them, send nothing... */
  startRow?: number;
  /** ...except these (ascending), whose earlier records are `error`: they are sent again. */
  retryRows?: readonly number[];
  /** Aborted on Ctrl-C or SIGTERM: stop reading and sending, let requests in flight finish. */
  signal?: AbortSignal;
  /** An answer kept from an earlier run (the local store, with --max-age): the row is written from it, nothing is sent. */
  reuse?: (item: SendableItem) => Promise<Chunk | undefined>;
  /** The chunk members whose api_code decides a reused answer's status. */
  sectionKeys?: readonly string[];
}

export interface BatchRunResult {
  /** The condition that stopped sending (authentication, credit, budget...), if one did. */
  fatal?: unknown;
  interrupted: boolean;
  /** Components not spent thanks to deduplication. */
  componentsSaved: number;
}

/** Sends one batch, delivering records part by part; `signal` is aborted when the run stops. Never throws: see sendBatch. */
export type SendFunction = (items: readonly PendingItem[], signal: AbortSignal, deliver: Deliver) => Promise<BatchOutcome>;

/** Hands over the records for the rows that share one answer: the item's own, then its duplicates'. */
function addRecords(output: OrderedOutput, pending: PendingItem, record: OutputRecord): void {
  output.add(record);
  for (const duplicate of pending.duplicates) {
    output.add({
      ...record,
      row: duplicate.row,
      input: duplicate.columns,
      ...(record.chunk ? { chunk: chunkForRow(record.chunk, duplicate) } : {}),
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
 * A stop (a signal, or a condition met while sending: credit, budget, quota) ends reading and
 * sending at once; requests in flight finish and their answers are written, with rows that were
 * never sent written as `error` only where an answered row follows them.
 */
export async function runBatch(
  rows: AsyncIterable<InputRow>,
  prepare: (row: InputRow) => PreparedItem,
  send: SendFunction,
  output: OrderedOutput,
  stats: RunStats,
  options: BatchRunOptions,
): Promise<BatchRunResult> {
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

  const settle: Deliver = (part, records, answer) => {
    part.forEach((pending, i) => {
      const record = records[i]!;
      dedupe?.settle(pending, keepsAnswer(record) ? { chunk: record.chunk, status: record.status } : undefined, answer, i);
      addRecords(output, pending, record);
    });
    // Written as soon as their turn comes, whatever the reader is doing.
    if (output.ready) void output.flush().catch(() => undefined);
  };

  const notSent = (batch: Batch) => {
    const reason: unknown = fatal ?? stopping.signal.reason;
    const error = `not sent: ${reason instanceof Error ? reason.message : String(reason)}; --resume sends it`;
    for (const pending of batch.items) {
      addRecords(output, pending, { row: pending.prepared.row, status: 'error', error, input: pending.prepared.columns, unsent: true });
    }
  };

  const launch = async (batch: Batch) => {
    while (inFlight.size >= options.concurrency && !closed()) await Promise.race(inFlight);
    if (closed()) {
      notSent(batch);
      return;
    }
    const task: Promise<void> = send(batch.items, stopping.signal, settle)
      .then(({ stop, drain }) => {
        if (stop === undefined) return;
        fatal ??= stop;
        if (!drain) stopping.abort(stop);
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  // A read error (an unclosed quote) ends the input, not the run: the rows read before it are
  // valid and still go out, so the output is whole up to the bad line. Only the reader's errors
  // are caught here; a failing output must stop the run before more is paid for.
  const reader = rows[Symbol.asyncIterator]();
  let readError: unknown;
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
        const kept = await options.reuse?.(sendable);
        if (kept) {
          stats.fromStore += 1;
          output.add({ row: sendable.row, status: statusOf(kept, options.sectionKeys ?? []), input: sendable.columns, chunk: kept });
          if (output.ready) await output.flush();
          continue;
        }
        const decision = dedupe ? dedupe.decide(sendable) : { kind: 'send' as const, pending: { prepared: sendable, duplicates: [] } };
        if (decision.kind === 'send') {
          for (const batch of batcher.add(decision.pending)) await launch(batch);
        } else if (decision.kind === 'answered') {
          const { chunk, status } = decision.answer;
          output.add({ row: sendable.row, status, input: sendable.columns, chunk: chunkForRow(chunk, sendable) });
        }
      }
      while (output.waiting > maxWaiting && inFlight.size > 0) await Promise.race(inFlight);
      if (output.ready) await output.flush();
    }

    for (const batch of batcher.flush()) await launch(batch);
    while (inFlight.size > 0) await Promise.all(inFlight);
  } finally {
    options.signal?.removeEventListener('abort', onSignal);
  }
  const interrupted = Boolean(options.signal?.aborted) && fatal === undefined;
  await output.finish();
  return { fatal: fatal ?? readError, interrupted, componentsSaved: dedupe?.saved ?? 0 };
}
