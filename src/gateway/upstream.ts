import { hostname } from 'node:os';
import { META } from '../catalog/index.js';
import { DEFAULT_RETRY_POLICY } from '../policy/policy.js';
import type { Service } from '../client/service-client.js';
import { openRunStore, runName } from '../engine/run-store.js';
import { emptyColumns, type InputRow } from '../input/row.js';
import { createPreparer } from '../input/prepare.js';
import type { Chunk } from '../model/chunk.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import type { OutputRecord } from '../model/record.js';
import { Budget } from '../pipeline/budget.js';
import { OrderedOutput } from '../pipeline/ordered-output.js';
import { billedCost, itemCostOf, sectionPricesOf } from '../pipeline/pricing.js';
import { runBatch, type SendFunction } from '../pipeline/run-batch.js';
import { RunStats } from '../pipeline/run-stats.js';
import { sendBatch, type Exchange } from '../pipeline/send-batch.js';
import type { UsageFigures } from '../store/spend.js';
import type { Store } from '../store/store-api.js';
import type { Clock } from '../throttle/clock.js';
import { DEFAULT_THROTTLE_POLICY } from '../policy/policy.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import { RateLimiter } from '../throttle/rate-limiter.js';
import { AccountWindows } from './account-windows.js';
import { callStore } from './call-store.js';
import { fairPacer } from './fair-pacer.js';
import { FairShare } from './fair-share.js';

/**
 * The gateway's one way to the service: given what a client's request asks (a target, its items,
 * how fresh an answer must be, how long it may wait), each item's chunk or why it has none, as the
 * service would answer it, from the store when it holds a fresh answer. Everything the gateway
 * knows of the service is behind this interface, so that the engine's own session can take its
 * place (issue 34) without the HTTP side changing.
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
  /** Gives the gateway's share of the account's windows up; the store is the caller's to close. */
  close(): Promise<void>;
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
  /** One attempt per call (client/service-client.ts): the configured service, the sandbox, or a test's fake. */
  service: Service;
  /** The store, open for the gateway's life. */
  store: Store;
  /** Whose answers and spend (store/account.ts). */
  account: string;
  /** The account whose windows it paces by, when not `account` (the built-in sandbox: one per port). */
  pacingAccount?: string;
  clock: Clock;
  /** Components a minute until the service states its windows. */
  ratePerMinute: number;
  maxRetries: number;
  /** The longest any call waits for the rate limit. */
  maxWaitMs: number;
  /**
   * What runs it (`serve 127.0.0.1:8710`): its name in the spend log (`usage --by run`), and with
   * the host's name, the owner of its claims. One gateway at a time answers to a name on a host: the
   * next one takes its claims over.
   */
  runLabel: string;
  /** Told of every request that reached the service, after the store has it. */
  onExchange?(exchange: Exchange): void;
}

/** Items one POST carries: the service's maximum. */
const BATCH_SIZE = 100;
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
 * The Upstream of today's engine parts, for the gateway's life: one store, one rate limiter (the
 * account's windows, shared through the store with every other gateway and job of the account),
 * and per call the engine's own pipeline (runBatch, sendBatch): answers from the store, claims so
 * that an item several calls need at once is bought once, retries, 429 waits, 400 isolation, and
 * every answer kept before it is given back.
 */
export async function openUpstream(settings: UpstreamSettings): Promise<Upstream> {
  const { store, account, clock } = settings;
  const pacingAccount = settings.pacingAccount ?? account;
  const run = runName(clock.now(), settings.runLabel);
  const limiter = new RateLimiter(
    { ...DEFAULT_THROTTLE_POLICY, initialPerMinute: settings.ratePerMinute, maxWaitMs: settings.maxWaitMs },
    clock,
  );
  const windows = new AccountWindows();
  const remembered = await store.loadWindows(pacingAccount);
  if (remembered) {
    limiter.remember(remembered);
    windows.observe(remembered);
  }
  const pacer = store.pacer(pacingAccount, run);
  limiter.shareWith(pacer);
  // The gateway's claims are its own, whatever its process: the next gateway here takes them over.
  const views = callStore(store, { run, claimant: `${hostname()} ${settings.runLabel}` }, clock);
  const session: Session = {
    settings,
    pacingAccount,
    limiter,
    windows,
    share: new FairShare(),
    viewFor: views.viewFor,
  };
  return {
    fetch: (call) => fetchFor(session, call),
    run,
    windows: () => windows.at(clock.now()),
    rateHeaders: () => windows.headers(clock.now()),
    waiting: () => session.share.waiting(),
    claimsHeld: views.claimsHeld,
    close: () => pacer.leave(),
  };
}

/** What lives as long as the gateway: the one limiter and what it knows of the windows, the fair queue, the store's views. */
interface Session {
  settings: UpstreamSettings;
  pacingAccount: string;
  limiter: RateLimiter;
  windows: AccountWindows;
  share: FairShare;
  viewFor: () => Store;
}

/** How one call sends a batch: sendBatch on the client's fair turn at the gateway's limiter, within the call's budget and wait. */
function senderFor(
  session: Session,
  call: UpstreamCall,
  parts: { stats: RunStats; prices: Record<string, number>; onResponse: (exchange: Exchange) => void },
): SendFunction {
  const { settings, limiter, share, windows } = session;
  const { clock } = settings;
  const budget = call.maxCost === undefined ? undefined : new Budget({ maxCost: call.maxCost }, itemCostOf(call.target, parts.prices));
  const limit = {
    readyAt: (components: number) => windows.readyAt(components, clock.now()),
    now: () => clock.now(),
    maxWaitMs: call.maxWaitMs,
  };
  return (items, batchTarget, signal, deliver) =>
    sendBatch(
      items,
      batchTarget,
      {
        client: settings.service,
        limiter: fairPacer(limiter, share, call.client, limit),
        sectionPrices: parts.prices,
        retry: { ...DEFAULT_RETRY_POLICY, maxRetries: settings.maxRetries, maxWaitMs: call.maxWaitMs },
        stats: parts.stats,
        clock,
        signal,
        ...(budget ? { budget } : {}),
        onResponse: parts.onResponse,
      },
      deliver,
    );
}

/** One call through the engine's pipeline: its items as rows, the store's answers first, each record in order. */
async function fetchFor(session: Session, call: UpstreamCall): Promise<UpstreamResult> {
  const { settings } = session;
  const { target } = call;
  const { clock } = settings;
  const prices = sectionPricesOf(target);
  const spend = emptySpend();
  const stats = new RunStats(clock);
  const records: OutputRecord[] = [];
  const output = new OrderedOutput({ write: (record) => void records.push(record) }, stats);
  const runStore = await openRunStore({
    store: session.viewFor(),
    account: settings.account,
    pacingAccount: session.pacingAccount,
    target,
    maxAgeMs: call.maxAgeMs,
    prices,
    clock,
    runLabel: settings.runLabel,
  });
  const onResponse = (exchange: Exchange) => {
    runStore.kept.record(exchange);
    session.windows.observe(exchange.windows);
    const { billed, cost } = billedCost(exchange.chunks, prices);
    Object.assign(spend, { requests: spend.requests + 1, components: spend.components + exchange.components });
    Object.assign(spend, { billed: spend.billed + billed, cost: spend.cost + cost });
    settings.onExchange?.(exchange);
  };
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
    const result = await runBatch(rowsOf(call.items), prepare, senderFor(session, call, { stats, prices, onResponse }), output, stats, {
      target,
      clock,
      batchSize: BATCH_SIZE,
      concurrency: CALL_CONCURRENCY,
      maxHoldRows: BATCH_SIZE,
      dedupeCapacity: BATCH_SIZE,
      signal: call.signal,
      kept: runStore.kept,
    });
    stop = result.fatal ?? (result.interrupted ? call.signal.reason : undefined);
    Object.assign(spend, { fromStore: stats.fromStore, saved: result.savedByStore.usd });
  } finally {
    await runStore.close(0, 0);
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
