import { MAX_ITEMS_PER_REQUEST, META } from '../catalog/index.js';
import { runOnSession } from '../engine/run-job.js';
import type { Session } from '../engine/session.js';
import { emptyColumns, type InputRow } from '../input/row.js';
import { createPreparer } from '../input/prepare.js';
import type { Chunk } from '../model/chunk.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import type { OutputRecord } from '../model/record.js';
import type { OutputWriter } from '../output/record-writer.js';
import { billedCost, sectionPricesOf } from '../pipeline/pricing.js';
import type { Exchange } from '../pipeline/send-batch.js';
import type { UsageFigures } from '../store/spend.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { RateLimiter } from '../throttle/rate-limiter.js';
import { AccountWindows } from './account-windows.js';
import { fairPacer } from './fair-pacer.js';
import { FairShare } from './fair-share.js';

/**
 * The gateway's one way to the service: given what a client's request asks (a target, its items,
 * how fresh an answer must be, how long it may wait), each item's chunk or why it has none, as the
 * service would answer it, from the store when it holds a fresh answer.
 */
export interface Upstream {
  fetch(call: UpstreamCall): Promise<UpstreamResult>;
  /** The gateway's name in the spend log, for what it records beside what the upstream does (rows answered from the store). */
  readonly run: string;
  /** The account's windows as they stand now (in this machine's time). */
  windows(): ReportedWindow[];
  /** The X-RateLimit-* headers an answer carries now. */
  rateHeaders(): Record<string, string>;
  /** Components waiting for the rate limit, by client. */
  waiting(): Map<string, number>;
  /** Sections the gateway's calls hold claims on now (/metrics). */
  claimsHeld(): number;
}

export interface UpstreamCall {
  /** The endpoint, or an mget's components. */
  target: QueryTarget;
  /** The items as the client sent them: identifiers, parameters and meta by their catalog names. */
  items: readonly Readonly<Record<string, unknown>>[];
  /** Parameters the query string gives every item (a POST's). */
  params: Readonly<Record<string, string>>;
  /** Who asks (a key's name): requests take turns by it. */
  client: string;
  /** An answer younger than this comes from the store; undefined: only one bought while this call waited. */
  maxAgeMs: number | undefined;
  /** The longest this call waits for the rate limit: beyond it, a QuotaWaitError stop. */
  maxWaitMs: number;
  /** USD at list price this call may buy; undefined: no limit (a BudgetReachedError stop beyond it). */
  maxCost?: number;
  /** Aborted to stop sending (the client left, the gateway stops, the wait ran out): its reason is the stop. */
  signal: AbortSignal;
}

export type ItemAnswer =
  | { kind: 'answer'; chunk: Chunk; fromStore: boolean }
  /** The item cannot be sent (the service, or the preparer before it, refused it). */
  | { kind: 'invalid'; message: string }
  /** The service or the network failed it, after the retries. */
  | { kind: 'failed'; message: string }
  /** Never sent: the call stopped first (UpstreamResult.stop says why). */
  | { kind: 'unsent' };

/** What a call bought (requests that reached the service) and what the store answered instead, as `usage` counts them. */
export type CallSpend = UsageFigures;

export interface UpstreamResult {
  /** One per item, in order. */
  answers: ItemAnswer[];
  /** Why items went unsent, if any did: a wait past the limit, a budget, the service's refusal, a store failure, the call's signal. */
  stop?: unknown;
  spend: CallSpend;
}

export interface UpstreamSettings {
  /**
   * The gateway's session, open for its life (engine/session.ts): the service, the store, the one
   * limiter (the account's windows, shared through the store with every other gateway and job of
   * the account), and the run every purchase is filed under (`usage --by run`: one a gateway start).
   */
  session: Session;
  maxRetries: number;
  /** Told of every request that reached the service, once it is handed to the store. */
  onExchange?(exchange: Exchange): void;
}

/** Requests in flight for one call at once. */
const CALL_CONCURRENCY = 4;

const emptySpend = (): CallSpend => ({ requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 });

/** Each item's answer, from the call's records (one per row; a stop leaves later rows without one). */
function answersOf(records: readonly OutputRecord[], items: number, members: number): ItemAnswer[] {
  const byRow = new Map(records.map((record) => [record.row, record]));
  return Array.from({ length: items }, (_, i): ItemAnswer => {
    const record = byRow.get(i + 1);
    if (!record || record.status === 'not_sent') return { kind: 'unsent' };
    if (record.status === 'invalid_input') return { kind: 'invalid', message: record.error ?? 'invalid item' };
    if (record.chunk === undefined) return { kind: 'failed', message: record.error ?? 'no answer' };
    return { kind: 'answer', chunk: record.chunk, fromStore: record.kept?.length === members };
  });
}

/**
 * The gateway's calls as jobs on its session, as any caller's: per call the engine's own job
 * (runOnSession): answers from the store, claims so that an item several calls need at once is
 * bought once (released with its answer), retries, 429 waits, 400 isolation, every answer kept
 * before it is given back. What is the gateway's own: the clients' turns at the session's limiter
 * (FairShare), and the windows as its clients are told them.
 */
export async function openUpstream(settings: UpstreamSettings): Promise<Upstream> {
  const { clock, runs } = settings.session;
  if (!runs) throw new Error("a gateway's session has a store");
  const windows = new AccountWindows();
  const remembered = await runs.windows();
  if (remembered) windows.observe(remembered);
  const gateway: Gateway = { settings, windows, share: new FairShare() };
  return {
    fetch: (call) => fetchFor(gateway, call),
    run: runs.run,
    windows: () => windows.at(clock.now()),
    rateHeaders: () => windows.headers(clock.now()),
    waiting: () => gateway.share.waiting(),
    claimsHeld: () => runs.claimsHeld(),
  };
}

/** What lives as long as the gateway beside its session: what it knows of the windows, the fair queue. */
interface Gateway {
  settings: UpstreamSettings;
  windows: AccountWindows;
  share: FairShare;
}

/** How one call takes its turns at the session's limiter: the client's fair turn, refused at once past the call's wait. */
function turnsOf(gateway: Gateway, call: UpstreamCall) {
  const { clock } = gateway.settings.session;
  const limit = {
    readyAt: (components: number) => gateway.windows.readyAt(components, clock.now()),
    now: () => clock.now(),
    maxWaitMs: call.maxWaitMs,
  };
  return (limiter: RateLimiter) => fairPacer(limiter, gateway.share, call.client, limit);
}

/** A call's records, gathered as the job writes them. */
function recordsWriter(): { records: OutputRecord[]; writer: OutputWriter } {
  const records: OutputRecord[] = [];
  const writer: OutputWriter = {
    write: (record) => void records.push(record),
    close: () => Promise.resolve(),
    failed: new Promise<never>(() => undefined),
  };
  return { records, writer };
}

/** One call as a job on the gateway's session: its items as rows, the store's answers first, each record in order. */
async function fetchFor(gateway: Gateway, call: UpstreamCall): Promise<UpstreamResult> {
  const { settings, windows } = gateway;
  const { target } = call;
  const prices = sectionPricesOf(target);
  const spend = emptySpend();
  const { records, writer } = recordsWriter();
  const prepare = createPreparer({
    level: target.level,
    endpoints: target.paramEndpoints,
    fixedParams: { ...call.params },
    map: {},
    metaColumn: META.name,
    fromItems: true,
  });
  let stop: unknown;
  try {
    const outcome = await runOnSession(settings.session, {
      target,
      rows: rowsOf(call.items),
      prepare,
      openWriter: () => Promise.resolve(writer),
      caps: call.maxCost === undefined ? {} : { maxCost: call.maxCost },
      pace: {
        batchSize: MAX_ITEMS_PER_REQUEST,
        concurrency: CALL_CONCURRENCY,
        dedupe: true,
        maxRetries: settings.maxRetries,
        maxWaitMs: call.maxWaitMs,
      },
      signal: call.signal,
      finishInFlightOnOutputFailure: true,
      reuse: { maxAgeMs: call.maxAgeMs },
      turns: turnsOf(gateway, call),
      // The gateway sums what the store answered per key and endpoint (SpendBook), a row a flush.
      callerRecordsReuse: true,
      // A key at its budget is still answered what the store holds; what it would buy is refused (402).
      storeAnswersPastBudget: true,
      events: {
        response: (exchange, cost) => {
          windows.observe(exchange.windows);
          const { billed } = billedCost(exchange.chunks, prices);
          Object.assign(spend, { requests: spend.requests + 1, components: spend.components + exchange.components });
          Object.assign(spend, { billed: spend.billed + billed, cost: spend.cost + cost });
          settings.onExchange?.(exchange);
        },
      },
    });
    stop = outcome.fatal ?? (outcome.interrupted ? call.signal.reason : undefined);
    Object.assign(spend, { fromStore: outcome.summary.fromStore, saved: outcome.savedUsd });
    if (outcome.storeCloseFailure !== undefined) stop ??= outcome.storeCloseFailure;
  } catch (error) {
    // What stops the call before anything is sent (a budget below one item's price, a store that cannot be read).
    stop = error;
  }
  return { answers: answersOf(records, call.items.length, sectionKeys(target).length), ...(stop !== undefined ? { stop } : {}), spend };
}

/** A call's items as the pipeline reads rows: numbered from 1, in order, each in columns that inherit nothing. */
function rowsOf(items: readonly Readonly<Record<string, unknown>>[]): AsyncIterable<InputRow> {
  const rows = items.map((item, i) => ({ row: i + 1, columns: Object.assign(emptyColumns(), item) }));
  return {
    [Symbol.asyncIterator]: () => {
      let next = 0;
      return { next: () => Promise.resolve(next < rows.length ? { done: false, value: rows[next++]! } : { done: true, value: undefined }) };
    },
  };
}
