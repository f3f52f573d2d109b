import { Readable } from 'node:stream';
import { asError } from '../errors/as-error.js';
import { ItemFailedError } from '../errors/index.js';
import type { PreparedItem } from '../input/row.js';
import type { Chunk } from '../model/chunk.js';
import type { OutputRecord } from '../model/record.js';
import type { OutputWriter } from '../output/record-writer.js';
import { runJob, type JobSettings } from './run-job.js';

/** What one item's run gives back: its record, and the body of the answer it was read from when the answer came whole. */
export interface OneItemAnswer {
  chunk: Chunk;
  record: OutputRecord;
  /** The 200's body as the service sent it, when every section came from it (none from the store). */
  body?: string;
}

export type OneItemSettings = Omit<JobSettings, 'rows' | 'prepare' | 'openWriter' | 'finishInFlightOnOutputFailure'> & {
  /** The item, prepared (validated) by the caller. */
  item: PreparedItem;
};

/**
 * One item through the engine, as a batch of one: looked up in the store, claimed, paced by the
 * account's pacer, retried by the one retry policy, recorded: the path every request takes. The
 * item goes as the spec's one-item GET unless it carries meta. What stops it is thrown (the run's
 * condition: authentication, credit, a budget, the rate limit beyond the wait, the store); an item
 * the service failed after the retries, or refused (400), is an ItemFailedError with the record's reason.
 */
export async function runOneItem(settings: OneItemSettings): Promise<OneItemAnswer> {
  const { item, ...job } = settings;
  let record: OutputRecord | undefined;
  let body: string | undefined;
  const writer: OutputWriter = {
    write: (written) => {
      record = written;
      return undefined;
    },
    close: () => Promise.resolve(),
    failed: new Promise<never>(() => undefined),
  };
  const outcome = await runJob({
    ...job,
    // The one row, already prepared: runJob reads rows as a batch does, here a source of one.
    rows: Readable.from([{ row: item.row, columns: item.columns }]),
    prepare: () => item,
    openWriter: () => Promise.resolve(writer),
    finishInFlightOnOutputFailure: true,
    oneItemGet: true,
    events: {
      ...job.events,
      response(exchange, cost) {
        if (exchange.status === 200) body = exchange.body;
        job.events?.response?.(exchange, cost);
      },
    },
  });
  if (outcome.fatal !== undefined) throw asError(outcome.fatal);
  // Stopped (Ctrl-C, SIGTERM) before its answer: the stop's own reason.
  if (outcome.interrupted && record?.chunk === undefined) throw asError(settings.signal?.reason);
  if (record?.chunk === undefined) throw new ItemFailedError(item.row, record?.error ?? 'no answer', record?.failure);
  return { chunk: record.chunk, record, ...(body !== undefined && record.kept === undefined ? { body } : {}) };
}
