import { findEndpoint } from '../catalog/index.js';
import { connect, type Service } from '../engine/connect.js';
import { openSession, type Session, type SessionStore } from '../engine/session.js';
import { storeBackNote, storeLostNote } from '../engine/store-outage-notes.js';
import { BadRequestError, CallAbortedError, ItemFailedError, UsageError } from '../errors/index.js';
import { mgetTarget, parseComponents, sectionKeys, singleEndpointTarget, type QueryTarget } from '../model/query-target.js';
import type { OutputRecord } from '../model/record.js';
import { sectionPricesOf } from '../pipeline/pricing.js';
import { accountOf } from '../store/account.js';
import { journalDirFor, storePathFrom } from '../store/store-path.js';
import { SYSTEM_CLOCK, type Clock } from '../throttle/clock.js';
import { batchRun, type BatchRecord, type BatchRun, type RecordCost } from './batch-run.js';
import { CLIENT_DEFAULTS, type BatchOptions, type CallOptions, type ClientOptions } from './client-options.js';
import type { Call, Client, Items, MakeCall, MgetCall, MgetComponent, MgetItem } from './client-types.js';
import { levelCalls } from './level-calls.js';
import { LibraryLog } from './library-log.js';
import type { ResultChunk } from './result-types.js';
import { defaultLabel, priceText, startJob, type ClientContext } from './start-job.js';

/** A record's cost: the sections bought for it (not kept, not a repeat's) and their list price when answered with data. */
function recordCost(target: QueryTarget, prices: Readonly<Record<string, number>>): RecordCost {
  const members = sectionKeys(target);
  return (record: OutputRecord) => {
    const fromStore = record.kept?.length === members.length;
    if (record.repeat || fromStore || record.chunk === undefined || record.status === 'error' || record.status === 'invalid_input')
      return { cost: { components: 0, usd: 0 }, fromStore };
    const kept = new Set(record.kept);
    let components = 0;
    let usd = 0;
    for (const member of members) {
      if (kept.has(member)) continue;
      components += 1;
      if ((record.chunk[member] as { api_code?: unknown } | undefined)?.api_code === 0) usd += prices[member] ?? 0;
    }
    return { cost: { components, usd: Math.round(usd * 1e6) / 1e6 }, fromStore };
  };
}

/** What stops a call: the client's signal and the call's, either. */
function callSignal(context: ClientContext, call: CallOptions): AbortSignal | undefined {
  const signals = [context.options.signal, call.signal].filter((signal): signal is AbortSignal => signal !== undefined);
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/** The records of `items` for `target`: the job starts when they are first read. `C` is what the catalog says its chunks are. */
function batchOf<C>(
  context: ClientContext,
  target: QueryTarget,
  items: Items<unknown>,
  call: BatchOptions = {},
  oneItem = false,
): BatchRun<C> {
  const prices = sectionPricesOf(target, priceText(context.options.prices));
  return batchRun<C>(items, startJob(context, target, call, oneItem), recordCost(target, prices), callSignal(context, call));
}

/** A one-item call's answer, once its run has ended (its store closed), or why it has none. */
async function answerOf<C>(records: AsyncIterator<BatchRecord<C>>): Promise<C> {
  const first = await records.next();
  // The end of the run: its store closed, or the condition that stopped it thrown.
  const end = await records.next();
  const record = first.done ? undefined : first.value;
  if (!end.done || record === undefined) throw new UsageError('one item gave other than one record');
  // Refused by the service (a 400): its answer, as every ServiceError carries it; else refused before sending.
  if (record.status === 'invalid_input' && record.failure) throw new BadRequestError(record.failure.serviceMessage, record.failure.headers);
  if (record.status === 'invalid_input') throw new UsageError(record.error ?? 'invalid item');
  if (record.chunk === undefined) throw new ItemFailedError(record.row, record.error ?? 'no answer', record.failure);
  return record.chunk;
}

/**
 * One item: a batch of one, so the store, the pacer and the caps treat it as the CLI's runs, sent
 * as the CLI's one-off is (the spec's one-item GET, a POST when it carries meta). Its signal
 * rejects it at the abort with a CallAbortedError; the run goes on behind it until the answer in
 * flight, paid for, is kept in the store (its own end, the abort's reason, is dropped).
 */
function oneOf<C>(context: ClientContext, target: QueryTarget, item: unknown, call: CallOptions = {}): Promise<C> {
  const signal = callSignal(context, call);
  if (signal?.aborted) return Promise.reject(new CallAbortedError(signal.reason));
  const answer = answerOf<C>(batchOf<C>(context, target, [item], call, true)[Symbol.asyncIterator]());
  if (signal === undefined) return answer;
  answer.catch(() => undefined);
  return new Promise<C>((resolve, reject) => {
    const onAbort = () => reject(new CallAbortedError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    void answer.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The call for `target`: one item, or `.batch` for many. */
function callOf<Item, C>(context: ClientContext, target: QueryTarget): Call<Item, C> {
  return Object.assign((item: Item, call?: CallOptions) => oneOf<C>(context, target, item, call), {
    batch: (items: Items<unknown>, call?: BatchOptions) => batchOf<C>(context, target, items, call),
  });
}

/** The session's store: the client's, for every call (each call's maxAge and job are its own). */
function sessionStore(
  options: ClientOptions,
  env: Readonly<Record<string, string | undefined>>,
  service: Service,
): SessionStore | undefined {
  const path = storePathFrom(options.store, env);
  if (path === undefined) return undefined;
  return {
    path,
    account: accountOf(service.connection, false),
    runLabel: options.label ?? defaultLabel(),
    journal: journalDirFor(path, env),
    outageWaitMs: options.storeWait ?? CLIENT_DEFAULTS.storeWait,
    ...(options.storeConnections !== undefined ? { connections: options.storeConnections } : {}),
  };
}

/** The service connected and the session opened on it, for every call of the client. */
async function openClientSession(options: ClientOptions, env: Readonly<Record<string, string | undefined>>, log: LibraryLog, clock: Clock) {
  const service = await connect(
    {
      ...(options.key !== undefined ? { key: options.key } : {}),
      ...(options.secret !== undefined ? { secret: options.secret } : {}),
      ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
      timeout: (options.timeout ?? CLIENT_DEFAULTS.timeout) / 1000,
      ...(options.proxy === false ? { proxyEnv: false } : {}),
    },
    { env, log },
    options.concurrency ?? CLIENT_DEFAULTS.concurrency,
  );
  try {
    const store = sessionStore(options, env, service);
    return await openSession({
      service,
      ...(store ? { store } : {}),
      clock,
      ratePerMinute: options.rate ?? CLIENT_DEFAULTS.rate,
      maxWaitMs: options.maxWait ?? CLIENT_DEFAULTS.maxWait,
      // The store is the client's, shared by its calls: its client hears when it goes and comes back.
      storeLost: (reason, waitMs) => {
        log.warn(storeLostNote(reason, waitMs, 'storeWait'));
        options.onEvent?.({ type: 'store-lost', reason: log.redact(reason.reason), waitMs });
      },
      storeBack: (afterMs, journaled) => {
        log.warn(storeBackNote(afterMs, journaled));
        options.onEvent?.({ type: 'store-back', afterMs, journaled });
      },
    });
  } catch (error) {
    await service.close();
    throw error;
  }
}

/**
 * The client's session, opened on first use and shared by every call until close(): one
 * connection pool to the service, one to the store, one pacer. One that failed to open (missing
 * credentials, a store not there) is tried again by the next call.
 */
function lazySession(options: ClientOptions, env: Readonly<Record<string, string | undefined>>, log: LibraryLog, clock: Clock) {
  let session: Promise<Session> | undefined;
  return {
    get: (): Promise<Session> => {
      session ??= openClientSession(options, env, log, clock);
      // Missing credentials now are not missing for good: the next call tries again.
      session.catch(() => (session = undefined));
      return session;
    },
    close: async (): Promise<void> => {
      const opened = session;
      session = undefined;
      const open = await opened?.catch(() => undefined);
      try {
        await open?.close();
      } finally {
        await open?.service.close();
      }
    },
  };
}

/**
 * A client of the service on propdata's engine: the same batching, pacing by the service's
 * windows, store of paid answers, budgets and retries as the CLI. Nothing is opened until the
 * first call, which opens the client's session (engine/session.ts); `close()` ends it.
 */
export function createClient(options: ClientOptions = {}): Client {
  return clientOn(options, SYSTEM_CLOCK);
}

/** createClient on a given clock: its waits and pacing follow it (a test's fake clock). */
// Exported for test/library/client.test.ts: a client on a fake clock.
export function clientOn(options: ClientOptions, clock: Clock): Client {
  const env = options.env ?? process.env;
  const log = new LibraryLog(options.logger);
  const session = lazySession(options, env, log, clock);
  const context: ClientContext = { options, log, session: session.get };

  const endpointCall: MakeCall = (name) => {
    const endpoint = findEndpoint(name);
    if (!endpoint) throw new UsageError(`the catalog has no endpoint ${name}`);
    return callOf(context, singleEndpointTarget(endpoint));
  };

  function mget<Names extends MgetComponent>(components: readonly Names[]): MgetCall<Names>;
  function mget<Names extends MgetComponent>(
    components: readonly Names[],
    item: MgetItem<Names>,
    call?: CallOptions,
  ): Promise<ResultChunk<Names>>;
  function mget<Names extends MgetComponent>(
    components: readonly Names[],
    item?: MgetItem<Names>,
    call?: CallOptions,
  ): MgetCall<Names> | Promise<ResultChunk<Names>> {
    const target = mgetTarget(parseComponents(components.join(',')));
    if (item !== undefined) return oneOf<ResultChunk<Names>>(context, target, item, call);
    return callOf(context, target);
  }

  return { ...levelCalls(endpointCall), mget, close: session.close };
}
