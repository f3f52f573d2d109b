import { chunkProblem } from '../client/chunk-problem.js';
import { interpretResponse } from '../client/interpret-response.js';
import { chunksForItems } from '../client/match-chunks.js';
import { decideRetry, isTransient, NO_ATTEMPTS, type Attempts } from '../client/retry-policy.js';
import { type RetryPolicy } from '../policy/policy.js';
import type { RawResponse, Service, ServiceRequest } from '../client/service-client.js';
import { BadRequestError, NetworkError, QuotaWaitError, RateLimitedError } from '../errors/index.js';
import type { PendingItem } from '../batching/batch.js';
import type { ResponseText } from '../batching/response-text.js';
import type { Chunk } from '../model/chunk.js';
import { notSentRecord, serviceAnswerOf, type OutputRecord } from '../model/record.js';
import { statusOf } from '../model/status.js';
import type { Clock } from '../throttle/clock.js';
import { parseRateHeaders, type ReportedWindow } from '../throttle/rate-headers.js';
import type { AcquireOptions, Reservation } from '../throttle/rate-limiter.js';
import type { ServiceClock } from '../throttle/service-clock.js';
import { itemToSend, sectionKeys, type QueryTarget } from '../model/query-target.js';
import type { SendableItem } from '../batching/batch.js';
import type { Budget } from './budget.js';
import { itemCostOf } from './pricing.js';
import type { RunStats } from './run-stats.js';

/** The pacing the pipeline needs: grants in row order, and what the service said of its windows (in local time). */
export interface Pacer {
  grants(components: number, options: AcquireOptions): AsyncIterable<Reservation>;
  observe(reservation: Reservation, reported: ReturnType<typeof parseRateHeaders>): void;
  refund(reservation: Reservation): void;
  pauseUntil(until: number): void;
  /** The service's clock against the run's: every answer feeds it, and the times it states are read through it. */
  readonly serviceClock: ServiceClock;
}

export interface SendContext {
  client: Service;
  limiter: Pacer;
  /** USD at list price per section (chunk member), for the budget. */
  sectionPrices: Readonly<Record<string, number>>;
  /** Retries, backoff and the longest rate-limit wait: client/retry-policy.ts. */
  retry: RetryPolicy;
  stats: RunStats;
  clock: Clock;
  /** Aborted when the run stops: nothing new is sent, waits end at once; requests in flight finish. */
  signal: AbortSignal;
  /** Aborted when answers can no longer be written (the output failed): requests in flight are cut off too. */
  abandon?: AbortSignal;
  budget?: Budget;
  onRetry?: (reason: string) => void;
  /** A 429 (or a quota's reset within reach) pauses every sender until this time (the run's clock). */
  onRateLimitWait?: (until: number) => void;
  /** After every response that reached the service, whatever its status (to record spend and windows). */
  onResponse?: (exchange: Exchange) => void;
  /**
   * A request of one item without meta goes as the spec's one-item GET (identifiers and parameters
   * in the query string), as a one-off's does; otherwise a POST. Report products go as a GET always.
   */
  oneItemGet?: boolean;
}

/** The context of one batch: the run's, and what its items are asked for. */
interface BatchContext extends SendContext {
  target: QueryTarget;
}

/** A request that reached the service and what came back. */
export interface Exchange {
  /** What was asked: the run's target, or the part of it the items lacked. */
  target: QueryTarget;
  /** The items sent, in request order. */
  sent: readonly SendableItem[];
  /** Each sent item's chunk from a 200, where one came back for it and is usable (undefined: none). */
  answers?: readonly (Chunk | undefined)[];
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The windows its headers stated, their resets in this machine's time (corrected for the service's clock). */
  windows: readonly ReportedWindow[];
  items: number;
  components: number;
  /** The chunks of a 200, as parsed (one per item; anything else in a bad answer). */
  chunks?: readonly unknown[];
  /** The 200's body as the service sent it (a one-off prints it byte for byte). */
  body?: string;
}

/**
 * Where a batch's records go, part by part, as soon as each part has its answer; with `answer`,
 * the text of the 200 their chunks were parsed from (chunk i for item i of the part).
 */
export type Deliver = (part: readonly PendingItem[], records: OutputRecord[], answer?: ResponseText) => void;

/** What came of a batch once every item has a record: the condition that must stop the run, if one arose. */
export interface BatchOutcome {
  stop?: unknown;
  /** The stop is a budget's: what it admitted before may still go out; nothing after it. */
  drain?: boolean;
}

/** Hands each part's records on as they come, and remembers why anything went unsent. */
interface Delivery {
  deliver: Deliver;
  reasons: unknown[];
  /** Takes a 400 instead of narrowing it down at once (while a 400's halves are tried). */
  badRequest?: (part: readonly PendingItem[], error: BadRequestError) => void;
}

const reasonText = (reason: unknown) => (reason instanceof Error ? reason.message : String(reason));

/** The records of items `error` failed: its message, and the service's answer when there was one. */
function failed(items: readonly PendingItem[], status: 'error' | 'invalid_input', error: unknown): OutputRecord[] {
  const failure = serviceAnswerOf(error);
  return items.map(({ prepared }) => ({
    row: prepared.row,
    status,
    error: reasonText(error),
    input: prepared.columns,
    ...(failure ? { failure } : {}),
  }));
}

function succeeded(items: readonly PendingItem[], chunks: readonly unknown[], sectionKeys: readonly string[]): OutputRecord[] {
  return items.map(({ prepared }, i) => {
    const chunk = chunks[i];
    // One unusable chunk (null, a number, absurdly deep) makes its own row an error; the run goes on.
    const problem = chunkProblem(chunk);
    if (problem !== undefined) return { row: prepared.row, status: 'error', error: problem, input: prepared.columns };
    return { row: prepared.row, status: statusOf(chunk as Chunk, sectionKeys), input: prepared.columns, chunk: chunk as Chunk };
  });
}

/**
 * Sends one batch until every item has a record, handing each part's records to `deliver` as soon
 * as that part is answered (so paid answers never wait for the rest of their batch); never throws.
 * Conditions that must stop the whole run (authentication, credit, budget, a quota reset beyond
 * --max-wait) come back as `stop`, and the items they kept from being sent get `unsent` records.
 * The batch goes out in as many requests as the rate windows need, each as soon as its grant
 * comes. 5xx and dropped connections are retried with backoff; a 429 pauses every sender until the
 * window resets; a 400 is narrowed down to the items that cause it.
 */
export async function sendBatch(
  items: readonly PendingItem[],
  target: QueryTarget,
  runContext: SendContext,
  deliver: Deliver,
): Promise<BatchOutcome> {
  const context: BatchContext = { ...runContext, target };
  const delivery: Delivery = { deliver, reasons: [] };
  let admitted = items.length;
  let budgetStop: unknown;
  if (context.budget) {
    const verdict = context.budget.fit(items.length, itemCostOf(target, context.sectionPrices));
    admitted = verdict.items;
    budgetStop = verdict.stop;
  }
  if (budgetStop !== undefined) unsent(items.slice(admitted), budgetStop, delivery);
  await sendInParts(items.slice(0, admitted), context, NO_ATTEMPTS, delivery);
  // A budget stop leaves what it admitted (earlier rows, within the cap) to go out; other stops end all sending.
  if (budgetStop !== undefined) return { stop: budgetStop, drain: true };
  const stop = delivery.reasons.find((reason) => reason !== context.signal.reason);
  return stop === undefined ? {} : { stop };
}

function unsent(part: readonly PendingItem[], reason: unknown, delivery: Delivery): void {
  if (part.length === 0) return;
  delivery.reasons.push(reason);
  delivery.deliver(
    part,
    part.map(({ prepared }) => notSentRecord(prepared, reason)),
  );
}

/** Asks the limiter for all of `items` at the priority of their first row; each grant goes out at once. */
async function sendInParts(items: readonly PendingItem[], context: BatchContext, attempts: Attempts, delivery: Delivery): Promise<void> {
  if (items.length === 0) return;
  const unit = context.target.componentsPerItem;
  const sending: Promise<void>[] = [];
  let offset = 0;
  try {
    const grants = context.limiter.grants(items.length * unit, { unit, priority: items[0]!.prepared.row, signal: context.signal });
    for await (const reservation of grants) {
      const part = items.slice(offset, offset + reservation.components / unit);
      offset += part.length;
      sending.push(sendPart(part, reservation, context, attempts, delivery));
    }
  } catch (reason) {
    // The run is stopping, or the limiter refused (a reset beyond --max-wait, an item wider than any window).
    unsent(items.slice(offset), reason, delivery);
  }
  await Promise.all(sending);
}

/**
 * Whether a part goes as a GET: report products take no POST (spec: their batches are of one item),
 * and a one-off's item goes in the spec's one-item form unless it carries meta, which exists only
 * on POST items.
 */
function sentAsGet(part: readonly PendingItem[], context: BatchContext): boolean {
  if (part.length !== 1) return false;
  return Boolean(context.target.getOnly) || (Boolean(context.oneItemGet) && part[0]!.prepared.item.meta === undefined);
}

/** The request for a part, in the wire form it takes (sentAsGet). */
function requestFor(part: readonly PendingItem[], context: BatchContext): ServiceRequest {
  const { target } = context;
  const signal = context.abandon ? { signal: context.abandon } : {};
  return sentAsGet(part, context)
    ? { method: 'GET', path: target.path, query: { ...itemToSend(target, part[0]!.prepared.item), ...target.query }, ...signal }
    : { method: 'POST', path: target.path, query: target.query, items: part.map((p) => itemToSend(target, p.prepared.item)), ...signal };
}

/** Sends the part's request, counting it in flight, and reads the service's clock and windows off its answer. */
async function exchangeFor(
  part: readonly PendingItem[],
  reservation: Reservation,
  context: BatchContext,
): Promise<{ response: RawResponse; exchange: Exchange }> {
  const { client, limiter, stats, clock } = context;
  stats.requests += 1;
  stats.requestsInFlight += 1;
  let response: RawResponse;
  const sentAt = clock.now();
  try {
    response = await client.send(requestFor(part, context));
  } finally {
    stats.requestsInFlight -= 1;
  }
  stats.responses += 1;
  // The answer's Date and resets say what time the service has: its windows are then read in ours.
  limiter.serviceClock.observe({ headers: response.headers, sentAt, receivedAt: clock.now() });
  // A 429 was not charged, nor counted by the service: out of the log before the answer's counts
  // are read, or the refused request would pass for our own use of the window (and hide others').
  if (response.status === 429) limiter.refund(reservation);
  // Every answer, a 429 included, describes the windows.
  const windows = limiter.serviceClock.localWindows(parseRateHeaders(response.headers));
  limiter.observe(reservation, windows);
  const exchange: Exchange = {
    target: context.target,
    sent: part.map(({ prepared }) => prepared),
    status: response.status,
    headers: response.headers,
    windows,
    items: part.length,
    components: reservation.components,
  };
  return { response, exchange };
}

/** One request for `part` under `reservation`, then whatever its answer calls for. */
async function sendPart(
  part: readonly PendingItem[],
  reservation: Reservation,
  context: BatchContext,
  attempts: Attempts,
  delivery: Delivery,
): Promise<void> {
  const { limiter, target, clock } = context;
  let records: OutputRecord[];
  let body: string | undefined;
  let answered: { response: RawResponse; exchange: Exchange } | undefined;
  try {
    answered = await exchangeFor(part, reservation, context);
    const { response, exchange } = answered;
    let chunks: unknown[];
    try {
      // A 429's Retry-After counts from now on the run's clock.
      chunks = interpretResponse(response, target.path, clock.now(), limiter.serviceClock.toLocal);
    } catch (error) {
      context.onResponse?.(exchange);
      throw error;
    }
    // A chunk count other than the items': the chunks that name their items are kept, the other
    // rows are errors (resending could charge twice for items that did come back).
    const theirs = chunksForItems(
      part.map((pending) => itemToSend(target, pending.prepared.item)),
      chunks,
    );
    records = succeeded(part, theirs, sectionKeys(target));
    const answers = records.map((record) => (record.status === 'error' ? undefined : record.chunk));
    context.onResponse?.({ ...exchange, chunks, answers, body: response.body });
    // Deduplication reads an answer's text by place: only where chunk i is item i's.
    body = theirs === chunks ? response.body : undefined;
  } catch (error) {
    if (answered === undefined) limiter.observe(reservation, []);
    return handleFailure(error, part, context, attempts, delivery);
  }
  context.stats.componentsUsed += reservation.components;
  delivery.deliver(part, records, body === undefined ? undefined : { body });
}

async function handleFailure(
  error: unknown,
  part: readonly PendingItem[],
  context: BatchContext,
  attempts: Attempts,
  delivery: Delivery,
): Promise<void> {
  const { limiter, stats, clock } = context;
  // Refunded when it was answered (sendPart): the retry waits for the window like anyone else.
  if (error instanceof RateLimitedError) stats.rateLimitWaits += 1;
  if (error instanceof BadRequestError) {
    if (delivery.badRequest) {
      delivery.badRequest(part, error);
      return;
    }
    return isolateBadRequest(part, error, context, delivery);
  }
  const decision = decideRetry(error, attempts, context.retry, clock.now());
  switch (decision.action) {
    case 'wait':
      limiter.pauseUntil(decision.until);
      context.onRateLimitWait?.(decision.until);
      return sendInParts(part, context, decision.next, delivery);
    case 'quota': {
      unsent(part, new QuotaWaitError(decision.until, context.retry.maxWaitMs, serviceAnswerOf(error)), delivery);
      return;
    }
    case 'retry':
      if (context.signal.aborted) {
        unsent(part, context.signal.reason, delivery);
        return;
      }
      stats.retries += 1;
      if (decision.possiblyCharged) stats.retriedPossiblyCharged += 1;
      context.onRetry?.(reasonText(error));
      try {
        await clock.sleep(decision.delayMs, context.signal);
      } catch {
        unsent(part, context.signal.reason, delivery);
        return;
      }
      return sendInParts(part, context, decision.next, delivery);
    case 'give up':
      // A service this run never reached (a wrong --base-url, nothing listening): one stop that
      // names the cause, not an error row per item and an exit that reads "complete".
      if (error instanceof NetworkError && !error.mayHaveBeenCharged && stats.responses === 0) {
        unsent(part, error, delivery);
        return;
      }
      // Retries spent on a transient failure: these rows are error records and the run goes on.
      if (isTransient(error)) {
        delivery.deliver(part, failed(part, 'error', error));
        return;
      }
      // Authentication, credit, an unknown endpoint: nothing more can be sent in this run.
      {
        unsent(part, error, delivery);
        return;
      }
  }
}

/**
 * A 400 names a problem, not always an item. Splitting the items in halves finds the offending
 * ones (400s are not charged). When both halves are refused with the same message, that may be
 * the request itself or one bad item in each half (a message that names an item by its place in
 * the request reads the same for both): it is taken as the request's own only when it happens
 * again one level down (`alike`), so a wholesale rejection costs a handful of requests, not one
 * per item, and good rows beside two bad ones are still sent.
 */
async function isolateBadRequest(
  items: readonly PendingItem[],
  error: BadRequestError,
  context: BatchContext,
  delivery: Delivery,
  alike = false,
): Promise<void> {
  if (items.length === 1) {
    delivery.deliver(items, failed(items, 'invalid_input', error));
    return;
  }
  // The halves' answers are held back until it is known whether the request as a whole was refused.
  const held: { part: readonly PendingItem[]; records: OutputRecord[]; answer: ResponseText | undefined }[] = [];
  const refused: { part: readonly PendingItem[]; error: BadRequestError }[] = [];
  const holding: Delivery = {
    deliver: (part, records, answer) => held.push({ part, records, answer }),
    reasons: delivery.reasons,
    badRequest: (part, refusal) => refused.push({ part, error: refusal }),
  };
  const middle = Math.ceil(items.length / 2);
  await Promise.all([sendAlone(items.slice(0, middle), context, holding), sendAlone(items.slice(middle), context, holding)]);
  const refusedAlike = held.length === 0 && refused.length > 1 && refused.every((refusal) => refusal.error.message === error.message);
  if (refusedAlike && alike) {
    delivery.deliver(items, failed(items, 'invalid_input', error));
    return;
  }
  for (const { part, records, answer } of held) delivery.deliver(part, records, answer);
  await Promise.all(refused.map((refusal) => isolateBadRequest(refusal.part, refusal.error, context, delivery, refusedAlike)));
}

/** Sends `items` on their own, as one part of a 400 being narrowed down. */
function sendAlone(items: readonly PendingItem[], context: BatchContext, delivery: Delivery): Promise<void> {
  return sendInParts(items, context, NO_ATTEMPTS, delivery);
}
