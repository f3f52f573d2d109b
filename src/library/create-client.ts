import { basename } from 'node:path';
import { endpointsAt, LEVELS, META, type Endpoint, type Level } from '../catalog/index.js';
import { connect, type Service } from '../engine/connect.js';
import { runJob, type JobOutcome } from '../engine/run-job.js';
import { ItemFailedError, UsageError } from '../errors/index.js';
import { createPreparer } from '../input/prepare.js';
import type { InputRow } from '../input/row.js';
import type { Chunk } from '../model/chunk.js';
import { mgetTarget, parseComponents, sectionKeys, singleEndpointTarget, type QueryTarget } from '../model/query-target.js';
import type { OutputRecord } from '../model/record.js';
import { sectionPricesOf } from '../pipeline/pricing.js';
import { accountOf } from '../store/account.js';
import { storePathFrom } from '../store/store-path.js';
import { SYSTEM_CLOCK, type Clock } from '../throttle/clock.js';
import { batchRun, type BatchRun, type RecordCost } from './batch-run.js';
import { CLIENT_DEFAULTS, type BatchOptions, type CallOptions, type ClientOptions } from './client-options.js';
import type { Client } from './client-types.js';
import { LibraryLog } from './library-log.js';
import type { RecordQueue } from './record-queue.js';
import type { RunEvent } from './run-events.js';

/** The service with a call's own deadline on each of its requests (CallOptions.timeout). */
const withDeadline = (service: Service, timeoutMs: number): Service => ({
  ...service,
  client: { send: (request) => service.client.send({ ...request, timeoutMs }) },
});

/** The run's name in the spend log when the caller gives none: the script that runs it. */
const defaultLabel = () => `library ${basename(process.argv[1] ?? 'node')}`;

/** Prices as the engine takes them (the CLI's --price text). */
const priceText = (prices: Readonly<Record<string, number>> | undefined) =>
  prices && Object.fromEntries(Object.entries(prices).map(([name, usd]) => [name, String(usd)]));

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

/**
 * A client of the service on propdata's engine: the same batching, pacing by the service's
 * windows, store of paid answers, budgets and retries as the CLI. Nothing is opened until the
 * first call; `close()` ends its connections.
 */
export function createClient(options: ClientOptions = {}): Client {
  return clientOn(options, SYSTEM_CLOCK);
}

/** createClient on a given clock: its waits and pacing follow it (a test's fake clock). */
export function clientOn(options: ClientOptions, clock: Clock): Client {
  const env = options.env ?? process.env;
  const log = new LibraryLog(options.logger);
  let service: Promise<Service> | undefined;
  const serviceOnce = () => {
    service ??= connect(
      {
        ...(options.key !== undefined ? { key: options.key } : {}),
        ...(options.secret !== undefined ? { secret: options.secret } : {}),
        ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
        timeout: (options.timeout ?? CLIENT_DEFAULTS.timeout) / 1000,
      },
      { env, log },
      options.concurrency ?? CLIENT_DEFAULTS.concurrency,
    );
    // Missing credentials now are not missing for good: the next call tries again.
    service.catch(() => (service = undefined));
    return service;
  };
  const storePath = storePathFrom(options.store, env);

  /** The engine's run of a batch's rows into `queue`. */
  const startJob =
    (target: QueryTarget, call: BatchOptions) =>
    async (rows: AsyncIterable<InputRow>, queue: RecordQueue, signal: AbortSignal): Promise<JobOutcome> => {
      const connected = await serviceOnce();
      const prepare = createPreparer({
        level: target.level,
        endpoints: target.paramEndpoints,
        fixedParams: Object.fromEntries(Object.entries(call.params ?? {}).map(([name, value]) => [name, String(value)])),
        map: { ...call.columns },
        metaColumn: META.name,
        fromItems: true,
      });
      const emit = (event: RunEvent) => {
        options.onEvent?.(event);
        call.onEvent?.(event);
      };
      const maxAge = call.maxAge ?? options.maxAge;
      let progress: (() => void) | undefined;
      const outcome = await runJob({
        target,
        rows,
        prepare,
        service: call.timeout === undefined ? connected : withDeadline(connected, call.timeout),
        openWriter: () => Promise.resolve(queue),
        ...(storePath !== undefined
          ? {
              store: {
                path: storePath,
                account: accountOf(connected.connection, false),
                ...(call.job !== undefined ? { job: call.job } : {}),
                ...(maxAge !== undefined ? { maxAgeMs: maxAge } : {}),
                runLabel: options.label ?? defaultLabel(),
              },
            }
          : {}),
        caps: {
          maxComponents: call.maxComponents ?? options.maxComponents,
          maxCost: call.maxCost ?? options.maxCost,
          maxCostMonth: options.maxCostMonth,
        },
        ...(options.prices ? { prices: priceText(options.prices) } : {}),
        pace: {
          batchSize: options.batchSize ?? CLIENT_DEFAULTS.batchSize,
          concurrency: options.concurrency ?? CLIENT_DEFAULTS.concurrency,
          ratePerMinute: options.rate ?? CLIENT_DEFAULTS.rate,
          dedupe: options.dedupe ?? CLIENT_DEFAULTS.dedupe,
          maxRetries: call.maxRetries ?? options.maxRetries ?? CLIENT_DEFAULTS.maxRetries,
          maxWaitMs: call.maxWait ?? options.maxWait ?? CLIENT_DEFAULTS.maxWait,
        },
        clock,
        signal,
        finishInFlightOnOutputFailure: true,
        events: {
          started: ({ stats }) => {
            progress = () =>
              emit({
                type: 'progress',
                rowsRead: stats.rowsRead,
                recordsWritten: stats.recordsWritten,
                requestsInFlight: stats.requestsInFlight,
                componentsUsed: stats.componentsUsed,
                costUsd: Math.round(stats.costUsd * 100) / 100,
              });
          },
          response: (exchange, costUsd) => {
            emit({ type: 'response', status: exchange.status, items: exchange.items, components: exchange.components, costUsd });
            progress?.();
          },
          retry: (reason) => {
            log.debug(`retrying a batch after: ${reason}`);
            emit({ type: 'retry', reason });
          },
          rateLimitWait: (ms) => emit({ type: 'rate-limit-wait', ms }),
        },
      });
      const closing = outcome.storeCloseFailure;
      if (closing !== undefined)
        log.warn(`the store failed as it closed: ${closing instanceof Error ? closing.message : JSON.stringify(closing)}`);
      emit({ type: 'end', summary: outcome.summary });
      return outcome;
    };

  const batch = <C>(target: QueryTarget, items: Iterable<unknown> | AsyncIterable<unknown>, call: BatchOptions = {}): BatchRun<C> => {
    const signals = [options.signal, call.signal].filter((signal): signal is AbortSignal => signal !== undefined);
    const prices = sectionPricesOf(target, priceText(options.prices));
    return batchRun<C>(
      items,
      startJob(target, call),
      recordCost(target, prices),
      signals.length > 0 ? AbortSignal.any(signals) : undefined,
    );
  };

  /** One item: a batch of one, so the store, the pacer and the caps treat it as the CLI's runs. */
  const one = async (target: QueryTarget, item: unknown, call: CallOptions = {}): Promise<Chunk> => {
    const records = batch<Chunk>(target, [item], call)[Symbol.asyncIterator]();
    const first = await records.next();
    // The end of the run: its store closed, or the condition that stopped it thrown.
    const end = await records.next();
    const record = first.done ? undefined : first.value;
    if (!end.done || record === undefined) throw new UsageError('one item gave other than one record');
    if (record.status === 'invalid_input') throw new UsageError(record.error ?? 'invalid item');
    if (record.chunk === undefined) throw new ItemFailedError(record.row, record.error ?? 'no answer');
    return record.chunk;
  };

  const endpointCall = (endpoint: Endpoint) => {
    const target = singleEndpointTarget(endpoint);
    return Object.assign((item: unknown, call?: CallOptions) => one(target, item, call), {
      batch: (items: Iterable<unknown> | AsyncIterable<unknown>, call?: BatchOptions) => batch(target, items, call),
    });
  };
  const levels = Object.fromEntries(
    LEVELS.map((level: Level) => [
      level,
      Object.fromEntries(endpointsAt(level).flatMap((endpoint) => (endpoint.mget ? [] : [[endpoint.target, endpointCall(endpoint)]]))),
    ]),
  );

  const mget = (components: readonly string[], item?: unknown, call?: CallOptions) => {
    const target = mgetTarget(parseComponents(components.join(',')));
    if (item !== undefined) return one(target, item, call);
    return Object.assign((given: unknown, callOptions?: CallOptions) => one(target, given, callOptions), {
      batch: (items: Iterable<unknown> | AsyncIterable<unknown>, callOptions?: BatchOptions) => batch(target, items, callOptions),
    });
  };

  return {
    ...levels,
    mget,
    close: async () => {
      const opened = service;
      service = undefined;
      await (await opened?.catch(() => undefined))?.close();
    },
  } as unknown as Client;
}
