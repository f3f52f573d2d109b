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

/** The items of one request and what came of it: their records, or the 400 that refused them. */
interface Answered {
  part: readonly PendingItem[];
  answer: OutputRecord[] | BadRequestError;
}

/**
 * Sends one batch until it has an answer for every item: records for each, never an exception,
 * except for conditions that must stop the whole run (authentication, credit, unknown endpoint).
 * The batch goes out in as many requests as the rate windows need. 5xx and dropped connections
 * are retried with backoff; a 429 pauses every sender until the window resets; a 400 is narrowed
 * down to the items that cause it.
 */
export async function sendBatch(items: readonly PendingItem[], context: SendContext): Promise<OutputRecord[]> {
  return resolveBadRequests(await sendInParts(items, context), context);
}

async function sendInParts(items: readonly PendingItem[], context: SendContext): Promise<Answered[]> {
  const answered: Answered[] = [];
  for (let rest = items; rest.length > 0; ) {
    const one = await sendUntilAnswered(rest, context);
    answered.push(one);
    rest = rest.slice(one.part.length);
  }
  return answered;
}

/**
 * Sends as many items from the front of `items` as the windows admit, until they are answered.
 * A request never asks for more than the smallest window allows (it could never be admitted),
 * and takes what the windows have left now rather than waiting for room for all of them.
 */
async function sendUntilAnswered(items: readonly PendingItem[], context: SendContext): Promise<Answered> {
  const { client, limiter, target, stats, clock } = context;
  const unit = target.componentsPerItem;
  for (let attempt = 0, rateLimited = 0; ; ) {
    const reservation = await limiter.acquire(items.length * unit, undefined, unit);
    // A grant is a whole number of items, at least one.
    const part = items.slice(0, reservation.components / unit);
    let chunks: Chunk[];
    let observed = false;
    try {
      stats.requests += 1;
      const response = await client.send({ method: 'POST', path: target.path, query: target.query, items: part.map((p) => p.prepared.item) });
      // Every answer, a 429 included, describes the windows.
      limiter.observe(reservation, parseRateHeaders(response.headers));
      observed = true;
      chunks = interpretResponse(response, target.path);
    } catch (error) {
      if (!observed) limiter.observe(reservation, []);
      if (error instanceof RateLimitedError && rateLimited < MAX_RATE_LIMITED) {
        rateLimited += 1;
        stats.rateLimitWaits += 1;
        limiter.refund(reservation);
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
      if (error instanceof BadRequestError) return { part, answer: error };
      if (isTransient(error) || error instanceof RateLimitedError) return { part, answer: failed(part, 'error', (error as Error).message) };
      throw error;
    }
    if (chunks.length !== part.length) {
      // Resending could charge twice for items that did come back; record the mismatch instead.
      return { part, answer: failed(part, 'error', `the service returned ${chunks.length} chunks for ${part.length} items`) };
    }
    stats.componentsUsed += part.length * unit;
    return { part, answer: succeeded(part, chunks, context.sectionKeys) };
  }
}

async function resolveBadRequests(answered: readonly Answered[], context: SendContext): Promise<OutputRecord[]> {
  const records: OutputRecord[] = [];
  for (const { part, answer } of answered) {
    records.push(...(answer instanceof BadRequestError ? await isolateBadRequest(part, answer, context) : answer));
  }
  return records;
}

/**
 * A 400 names a problem, not always an item. Splitting the items in halves finds the offending
 * ones (400s are not charged). When every part of both halves is rejected with the same message
 * the problem is the request itself, not an item, and every item gets the message: a wholesale
 * rejection costs three requests, not one per item.
 */
async function isolateBadRequest(items: readonly PendingItem[], error: BadRequestError, context: SendContext): Promise<OutputRecord[]> {
  if (items.length === 1) return failed(items, 'invalid_input', error.message);
  const middle = Math.ceil(items.length / 2);
  const answered = [...(await sendInParts(items.slice(0, middle), context)), ...(await sendInParts(items.slice(middle), context))];
  if (answered.every(({ answer }) => answer instanceof BadRequestError && answer.message === error.message)) {
    return failed(items, 'invalid_input', error.message);
  }
  return resolveBadRequests(answered, context);
}
