import { ServiceError, type ResponseHeaders } from '../errors/index.js';
import type { Chunk } from './chunk.js';
import type { Status } from './status.js';

/** One output record per input item, whatever happened to it. */
export interface OutputRecord {
  row: number;
  status: Status;
  error?: string;
  /** The original input columns. */
  input: Record<string, unknown>;
  chunk?: Chunk;
  /** Never sent: the run stopped first. Written (as `not_sent`) only where an answered row must follow it. */
  unsent?: true;
  /** The sections written from the store rather than bought (all of them: the row cost nothing). */
  kept?: readonly string[];
  /** Answered by an identical item earlier in the run: nothing was bought for this row. */
  repeat?: true;
  /** The service's answer that failed the item (a 5xx after the retries, a 400), when one came: what a ServiceError carries. */
  failure?: ServiceAnswer;
}

/** An error answer as a caller inspects it, as openai-node's errors carry it: its status, headers (credentials redacted) and request id. */
export interface ServiceAnswer {
  status: number;
  headers: ResponseHeaders;
  /** The service's id of the request (X-Request-Id), when it gives one. */
  requestId: string | undefined;
  /** What the service said, as its body put it, when it said anything. */
  serviceMessage: string | undefined;
}

/** The answer behind `error`, when the service gave one (a network failure has none). */
export function serviceAnswerOf(error: unknown): ServiceAnswer | undefined {
  if (!(error instanceof ServiceError)) return undefined;
  const { status, headers, requestId, serviceMessage } = error;
  return { status, headers, requestId, serviceMessage };
}

/** A record as the run's counts have it (a writer hands it on, the summary counts it): its row, its status, whether it was sent. */
export type CountedRecord = Pick<OutputRecord, 'row' | 'status' | 'unsent'>;

/** The record of a row the run stopped before sending, and why it stopped. */
export function notSentRecord(row: { row: number; columns: Record<string, unknown> }, reason: unknown): OutputRecord {
  const because = reason instanceof Error ? reason.message : String(reason);
  return {
    row: row.row,
    status: 'not_sent',
    error: `not sent: ${because}; run the command again to send it`,
    input: row.columns,
    unsent: true,
  };
}

/**
 * Whether a record carries an answer worth keeping: one the service gave (errors, and rows never
 * sent, carry none). Deduplication reuses it within a run, the store across runs.
 */
export function keepsAnswer(record: OutputRecord | undefined): record is OutputRecord & { chunk: Chunk } {
  return record?.chunk !== undefined && record.status !== 'error' && record.status !== 'invalid_input';
}
