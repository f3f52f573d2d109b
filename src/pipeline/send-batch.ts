import { interpretResponse } from '../client/interpret-response.js';
import { backoffDelay, isTransient, type RetryPolicy } from '../client/retry-policy.js';
import type { ServiceClient } from '../client/service-client.js';
import { BadRequestError, RateLimitedError } from '../errors/index.js';
import type { PendingItem } from '../batching/batch.js';
import type { Chunk, OutputRecord } from '../output/record.js';
import { statusOf } from '../output/status.js';
import type { Clock } from '../throttle/clock.js';
import { parseRateHeaders } from '../throttle/rate-headers.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';
import type { QueryTarget } from '../catalog/query-target.js';
import type { RunStats } from './run-stats.js';

/** 429s a batch sits out before its items are recorded as failed: the service is not coming back. */
const MAX_RATE_LIMITED = 20;

export interface SendContext {
  client: ServiceClient;
  limiter: RateLimiter;
  target: QueryTarget;
  /** Section keys a chunk should carry, for its status. */
  sectionKeys: readonly string[];
  retry: RetryPolicy;
  stats: RunStats;
  clock: Clock;
  onRetry?: (reason: string) => void;
}

function failed(items: readonly PendingItem[], status: 'error' | 'invalid_input', error: string): OutputRecord[] {
  return items.map(({ prepared }) => ({ row: prepared.row, status, error, input: prepared.columns }));
}

function succeeded(items: readonly PendingItem[], chunks: readonly Chunk[], sectionKeys: readonly string[]): OutputRecord[] {
  return items.map(({ prepared }, i) => {
    const chunk = chunks[i]!;
    return { row: prepared.row, status: statusOf(chunk, sectionKeys), input: prepared.columns, chunk };
  });
}

/**
 * Sends one batch until it has an answer for every item: records for each, never an exception,
 * except for conditions that must stop the whole run (authentication, credit, unknown endpoint).
 * 5xx and dropped connections are retried with backoff; a 429 pauses every sender until the
 * window resets; a 400 is narrowed down to the items that cause it.
 */
export async function sendBatch(items: readonly PendingItem[], context: SendContext): Promise<OutputRecord[]> {
  const answer = await sendUntilAnswered(items, context);
  return answer instanceof BadRequestError ? isolateBadRequest(items, answer, context) : answer;
}

/** Records for every item, or the 400 that rejected the batch as a whole. */
async function sendUntilAnswered(items: readonly PendingItem[], context: SendContext): Promise<OutputRecord[] | BadRequestError> {
  const { client, limiter, target, stats, clock } = context;
  const components = items.length * target.componentsPerItem;
  for (let attempt = 0, rateLimited = 0; ; ) {
    const reservation = await limiter.acquire(components);
    let chunks: Chunk[];
    try {
      stats.requests += 1;
      const response = await client.send({ method: 'POST', path: target.path, query: target.query, items: items.map((p) => p.prepared.item) });
      limiter.observe(reservation, parseRateHeaders(response.headers));
      chunks = interpretResponse(response, target.path);
    } catch (error) {
      limiter.observe(reservation, []);
      if (error instanceof RateLimitedError && rateLimited < MAX_RATE_LIMITED) {
        rateLimited += 1;
        stats.rateLimitWaits += 1;
        limiter.pauseUntil(error.retryAt ?? clock.now() + backoffDelay(context.retry, rateLimited));
        continue;
      }
      if (isTransient(error) && attempt < context.retry.maxRetries) {
        stats.retries += 1;
        context.onRetry?.((error as Error).message);
        await clock.sleep(backoffDelay(context.retry, attempt));
        attempt += 1;
        continue;
      }
      if (error instanceof BadRequestError) return error;
      if (isTransient(error) || error instanceof RateLimitedError) return failed(items, 'error', (error as Error).message);
      throw error;
    }
    if (chunks.length !== items.length) {
      // Resending could charge twice for items that did come back; record the mismatch instead.
      return failed(items, 'error', `the service returned ${chunks.length} chunks for ${items.length} items`);
    }
    stats.componentsUsed += components;
    return succeeded(items, chunks, context.sectionKeys);
  }
}

/**
 * A 400 names a problem, not always an item. Splitting the batch in halves finds the offending
 * items (400s are not charged). When both halves are rejected with the same message the problem
 * is the request itself, not an item, and every item gets the message: a wholesale rejection
 * costs three requests, not one per item.
 */
async function isolateBadRequest(items: readonly PendingItem[], error: BadRequestError, context: SendContext): Promise<OutputRecord[]> {
  if (items.length === 1) return failed(items, 'invalid_input', error.message);
  const halves = [items.slice(0, Math.ceil(items.length / 2)), items.slice(Math.ceil(items.length / 2))];
  const answers = [];
  for (const half of halves) answers.push(await sendUntilAnswered(half, context));
  if (answers.every((answer) => answer instanceof BadRequestError && answer.message === error.message)) {
    return failed(items, 'invalid_input', error.message);
  }
  const records: OutputRecord[] = [];
  for (const [i, answer] of answers.entries()) {
    records.push(...(answer instanceof BadRequestError ? await isolateBadRequest(halves[i]!, answer, context) : answer));
  }
  return records;
}
