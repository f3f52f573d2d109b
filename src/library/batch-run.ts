import type { JobOutcome } from '../engine/run-job.js';
import type { InputRow } from '../input/row.js';
import { emptyColumns } from '../input/row.js';
import type { Chunk } from '../model/chunk.js';
import type { OutputRecord, ServiceAnswer } from '../model/record.js';
import type { Status } from '../model/status.js';
import type { RunSummary } from '../pipeline/summary.js';
import { asError } from '../errors/as-error.js';
import { UsageError } from '../errors/index.js';
import { inLibraryTerms } from './library-terms.js';
import { RecordQueue } from './record-queue.js';

/** One record per item, in input order, whatever happened to it. */
export interface BatchRecord<C = Chunk> {
  /** The item's 1-based position in the input. */
  row: number;
  /** `ok`, `partial`, `no_content` (answered); `invalid_input` (never sent: `error` says why); `error` (the service or the network failed it). */
  status: Status;
  /** The answer, as the service sent it; each section's `api_code` says whether it has data (0) or none (204). */
  chunk?: C;
  /** Why the item has no answer. */
  error?: string;
  /** The item as given. */
  input: Readonly<Record<string, unknown>>;
  /** What this item's answer cost: the sections bought for it and their list price when answered with data (what the service bills). */
  cost: { components: number; usd: number };
  /** Every section came from the store: nothing was bought for it. */
  fromStore: boolean;
  /**
   * For an `error` or `invalid_input` record the service answered (a 5xx after the retries, a
   * 400): that answer's `status`, `headers` (credentials redacted), `requestId` and what it said,
   * as a thrown ServiceError carries them. Absent after a network failure or a local refusal.
   */
  failure?: ServiceAnswer;
}

/**
 * A batch's records as an async iterable, in input order. Reading them is what runs the batch:
 * the items are read as the records are taken. Leaving the loop (`break`, a `return`, an
 * exception) stops it: nothing new is sent, and what is in flight is answered and kept in the
 * store before the loop's exit completes. A condition that stops the batch (authentication,
 * credit, a budget, a quota beyond maxWait) is thrown after the records written before it. A
 * stop by the caller's signal stops it the same way, and the loop's next step throws the signal's
 * reason once what was in flight is kept: no record comes after the abort.
 */
export interface BatchRun<C = Chunk> extends AsyncIterable<BatchRecord<C>> {
  /** The batch's summary (`propdata --report`'s), once it has ended: call it after the loop. */
  summary(): Promise<RunSummary>;
}

/** Runs the engine for a batch's rows, writing to `queue`, until `signal` stops it. */
export type StartJob = (rows: AsyncIterable<InputRow>, queue: RecordQueue, signal: AbortSignal) => Promise<JobOutcome>;

/** Items as the engine reads rows: numbered from 1, each copied into columns that inherit nothing. */
async function* rowsOf(items: Iterable<unknown> | AsyncIterable<unknown>): AsyncGenerator<InputRow> {
  let row = 0;
  for await (const item of items) {
    row += 1;
    const columns = emptyColumns();
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      yield {
        row,
        columns,
        readError: `the item is ${item === null ? 'null' : Array.isArray(item) ? 'an array' : `a ${typeof item}`}, not an object of identifiers`,
      };
      continue;
    }
    Object.assign(columns, item);
    yield { row, columns };
  }
}

/** What stopped a batch, thrown as an Error whatever it was (an abort's reason can be any value). */
/** The caller left the loop: the batch stops as on Ctrl-C. */
class LoopLeft extends Error {
  constructor() {
    super('the caller stopped reading the records');
  }
}

/** What a record cost, and whether the store answered it whole. */
export type RecordCost = (record: OutputRecord) => Pick<BatchRecord, 'cost' | 'fromStore'>;

/**
 * A batch run for the client: started on first use, read through a RecordQueue. `costOf` prices
 * one record; `signal` is the caller's (the client's and the call's).
 */
export function batchRun<C>(
  items: Iterable<unknown> | AsyncIterable<unknown>,
  start: StartJob,
  costOf: RecordCost,
  signal: AbortSignal | undefined,
): BatchRun<C> {
  let running: { queue: RecordQueue; job: Promise<JobOutcome>; stop: AbortController } | undefined;
  const run = () => {
    if (running) return running;
    const queue = new RecordQueue((record) => costOf(record).cost);
    const stop = new AbortController();
    const stopFor = () => stop.abort(signal?.reason);
    if (signal?.aborted) stopFor();
    signal?.addEventListener('abort', stopFor, { once: true });
    // What stops the batch is told in the library's terms (its options, not the CLI's flags).
    const started = start(rowsOf(items), queue, stop.signal).then(
      (outcome) => (outcome.fatal === undefined ? outcome : { ...outcome, fatal: inLibraryTerms(outcome.fatal) }),
      (error: unknown) => {
        throw inLibraryTerms(asError(error));
      },
    );
    const job = started.finally(() => {
      signal?.removeEventListener('abort', stopFor);
      // A job that could not start (a store that cannot be opened) never opened its output.
      void queue.close();
    });
    // Read by next() or summary(); a caller who reads neither has not started the batch at all.
    job.catch(() => undefined);
    return (running = { queue, job, stop });
  };
  const toRecord = (record: OutputRecord): BatchRecord<C> => ({
    row: record.row,
    status: record.status,
    ...(record.chunk !== undefined ? { chunk: record.chunk as C } : {}),
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(record.failure !== undefined ? { failure: record.failure } : {}),
    input: record.input,
    ...costOf(record),
  });
  return {
    [Symbol.asyncIterator](): AsyncIterator<BatchRecord<C>> {
      const { queue, job, stop } = run();
      return {
        async next() {
          const record = await queue.take(stop.signal);
          if (record) return { value: toRecord(record), done: false };
          // Stopped by the caller's signal: no record is handed over after it, not even one answered
          // before it and not yet taken (the store keeps them all), and the engine never waits for room.
          const aborted = stop.signal.aborted;
          if (aborted) queue.leave();
          const outcome = await job;
          if (outcome.fatal !== undefined) throw asError(outcome.fatal);
          if ((aborted || outcome.interrupted) && !(stop.signal.reason instanceof LoopLeft)) throw asError(stop.signal.reason);
          return { value: undefined, done: true };
        },
        async return() {
          queue.leave();
          stop.abort(new LoopLeft());
          await job.catch(() => undefined);
          return { value: undefined, done: true };
        },
      };
    },
    summary: () =>
      running
        ? running.job.then((outcome) => outcome.summary)
        : Promise.reject(new UsageError('the batch has not run: its records are read first (for await ... of), then its summary')),
  };
}
