import type { Batch, PendingItem, SendableItem } from '../batching/batch.js';
import { Batcher } from '../batching/batcher.js';
import { chunkForRow, Deduplicator } from '../batching/deduplicator.js';
import type { InputRow, PreparedItem } from '../input/row.js';
import type { OutputRecord } from '../output/record.js';
import type { Budget } from './budget.js';
import type { OrderedOutput } from './ordered-output.js';
import type { RunStats } from './run-stats.js';

export interface BatchRunOptions {
  batchSize: number;
  concurrency: number;
  /** How far behind the newest row a partial batch may wait for more items of its key set. */
  maxHoldRows: number;
  /** Distinct answers remembered for deduplication; 0 turns deduplication off. */
  dedupeCapacity: number;
  budget?: Budget;
  /** Rows before this one are already in the output (--resume): read past them, send nothing. */
  startRow?: number;
  /** Aborted on the first Ctrl-C: stop reading, let in-flight batches finish. */
  signal?: AbortSignal;
}

export interface BatchRunResult {
  /** The condition that stopped sending (authentication, credit, budget...), if one did. */
  fatal?: unknown;
  interrupted: boolean;
  /** Components not spent thanks to deduplication. */
  componentsSaved: number;
}

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

/**
 * The pipeline, free of any I/O choice: rows in, records out in input order. Reading pauses
 * whenever the senders are all busy or too many finished records wait for an earlier row, so
 * memory stays bounded by the batch size, concurrency and hold window, not by the input's size.
 */
export async function runBatch(
  rows: AsyncIterable<InputRow>,
  prepare: (row: InputRow) => PreparedItem,
  send: (items: readonly PendingItem[]) => Promise<OutputRecord[]>,
  output: OrderedOutput,
  stats: RunStats,
  options: BatchRunOptions,
): Promise<BatchRunResult> {
  const batcher = new Batcher(options.batchSize, options.maxHoldRows);
  const dedupe = options.dedupeCapacity > 0 ? new Deduplicator(options.dedupeCapacity) : undefined;
  const inFlight = new Set<Promise<void>>();
  const maxWaiting = options.maxHoldRows + options.concurrency * options.batchSize;
  const startRow = options.startRow ?? 1;
  let fatal: unknown;

  const settle = (batch: Batch, records: OutputRecord[]) => {
    batch.items.forEach((pending, i) => {
      const record = records[i]!;
      const answered = record.chunk !== undefined && record.status !== 'error' && record.status !== 'invalid_input';
      dedupe?.settle(pending, answered ? { chunk: record.chunk!, status: record.status } : undefined);
      addRecords(output, pending, record);
    });
  };

  const launch = async (batch: Batch) => {
    while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
    if (fatal !== undefined) return;
    try {
      options.budget?.admit(batch.items.length);
    } catch (error) {
      fatal = error;
      return;
    }
    const task: Promise<void> = send(batch.items)
      .then(
        (records) => settle(batch, records),
        (error: unknown) => {
          fatal ??= error;
        },
      )
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  // A read error (an unclosed quote) ends the input, not the run: the rows read before it are
  // valid and still go out, so the output is whole up to the bad line. Only the reader's errors
  // are caught here; a failing output must stop the run before more is paid for.
  const reader = rows[Symbol.asyncIterator]();
  let readError: unknown;
  for (;;) {
    if (fatal !== undefined || options.signal?.aborted) {
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
    if (row.row < startRow) continue;
    stats.rowsRead += 1;
    const prepared = prepare(row);
    if (!prepared.item) {
      output.add({ row: prepared.row, status: 'invalid_input', error: prepared.invalid ?? 'invalid input', input: prepared.columns });
    } else {
      const sendable = prepared as SendableItem;
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

  const interrupted = Boolean(options.signal?.aborted);
  if (fatal === undefined && !interrupted) for (const batch of batcher.flush()) await launch(batch);
  await Promise.all(inFlight);
  await output.flush();
  return { fatal: fatal ?? readError, interrupted, componentsSaved: dedupe?.saved ?? 0 };
}
