import type { Batch, PendingItem } from '../batching/batch.js';
import { Batcher } from '../batching/batcher.js';
import type { InputRow, PreparedItem } from '../input/row.js';
import type { OutputRecord } from '../output/record.js';
import type { OrderedOutput } from './ordered-output.js';
import type { RunStats } from './run-stats.js';

export interface BatchRunOptions {
  batchSize: number;
  concurrency: number;
  /** How far behind the newest row a partial batch may wait for more items of its key set. */
  maxHoldRows: number;
  /** Aborted on the first Ctrl-C: stop reading, let in-flight batches finish. */
  signal?: AbortSignal;
}

export interface BatchRunResult {
  /** The condition that stopped sending (authentication, credit...), if one did. */
  fatal?: unknown;
  interrupted: boolean;
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
  const inFlight = new Set<Promise<void>>();
  const maxWaiting = options.maxHoldRows + options.concurrency * options.batchSize;
  let fatal: unknown;

  const launch = async (batch: Batch) => {
    while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
    if (fatal !== undefined) return;
    const task: Promise<void> = send(batch.items)
      .then(
        (records) => records.forEach((record) => output.add(record)),
        (error: unknown) => {
          fatal ??= error;
        },
      )
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  };

  for await (const row of rows) {
    if (fatal !== undefined || options.signal?.aborted) break;
    stats.rowsRead += 1;
    const prepared = prepare(row);
    if (prepared.item) {
      for (const batch of batcher.add({ prepared: prepared as PendingItem['prepared'] })) await launch(batch);
    } else {
      output.add({ row: prepared.row, status: 'invalid_input', error: prepared.invalid ?? 'invalid input', input: prepared.columns });
    }
    while (output.waiting > maxWaiting && inFlight.size > 0) await Promise.race(inFlight);
    await output.flush();
  }

  const interrupted = Boolean(options.signal?.aborted);
  if (fatal === undefined && !interrupted) for (const batch of batcher.flush()) await launch(batch);
  await Promise.all(inFlight);
  await output.flush();
  return { fatal, interrupted };
}
