import { basename } from 'node:path';
import { META } from '../catalog/index.js';
import type { Service } from '../engine/connect.js';
import { runJob, type JobEvents, type JobOutcome, type JobPace, type JobStore } from '../engine/run-job.js';
import { createPreparer } from '../input/prepare.js';
import type { QueryTarget } from '../model/query-target.js';
import { accountOf } from '../store/account.js';
import { journalDirFor } from '../store/store-path.js';
import type { Clock } from '../throttle/clock.js';
import type { StartJob } from './batch-run.js';
import { CLIENT_DEFAULTS, type BatchOptions, type ClientOptions } from './client-options.js';
import type { LibraryLog } from './library-log.js';
import type { RunEvent } from './run-events.js';

/** What every call of one client shares. */
export interface ClientContext {
  options: ClientOptions;
  clock: Clock;
  log: LibraryLog;
  /** Undefined: no store. */
  storePath: string | undefined;
  /** The environment the client reads (its store's journal lives in its PROPDATA_HOME). */
  env: Record<string, string | undefined>;
  /** The service, connected on first use. */
  service(): Promise<Service>;
}

/** The run's name in the spend log when the caller gives none: the script that runs it. */
const defaultLabel = () => `library ${basename(process.argv[1] ?? 'node')}`;

/** Prices as the engine takes them (the CLI's --price text). */
export const priceText = (prices: Readonly<Record<string, number>> | undefined) =>
  prices && Object.fromEntries(Object.entries(prices).map(([name, usd]) => [name, String(usd)]));

/** The service with a call's own deadline on each of its requests (CallOptions.timeout). */
const withDeadline = (service: Service, timeoutMs: number): Service => ({
  ...service,
  client: { send: (request) => service.client.send({ ...request, timeoutMs }) },
});

/** The store a call's job keeps its answers in, with the call's age limit and job. */
function jobStore(context: ClientContext, connected: Service, call: BatchOptions): JobStore | undefined {
  if (context.storePath === undefined) return undefined;
  const maxAge = call.maxAge ?? context.options.maxAge;
  return {
    path: context.storePath,
    account: accountOf(connected.connection, false),
    ...(call.job !== undefined ? { job: call.job } : {}),
    ...(maxAge !== undefined ? { maxAgeMs: maxAge } : {}),
    runLabel: context.options.label ?? defaultLabel(),
    journal: journalDirFor(context.storePath, context.env),
    outageWaitMs: context.options.storeWait ?? CLIENT_DEFAULTS.storeWait,
  };
}

/** The engine's events as the caller's RunEvents (the client's onEvent and the call's). */
function jobEvents(context: ClientContext, call: BatchOptions): { events: JobEvents; emit: (event: RunEvent) => void } {
  const emit = (event: RunEvent) => {
    context.options.onEvent?.(event);
    call.onEvent?.(event);
  };
  let progress: (() => void) | undefined;
  const events: JobEvents = {
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
      context.log.debug(`retrying a batch after: ${reason}`);
      emit({ type: 'retry', reason });
    },
    rateLimitWait: (ms) => emit({ type: 'rate-limit-wait', ms }),
  };
  return { events, emit };
}

/** How a call's job sends: the call's options, else the client's, else the CLI's defaults. */
function jobPace({ options }: ClientContext, call: BatchOptions): JobPace {
  return {
    batchSize: options.batchSize ?? CLIENT_DEFAULTS.batchSize,
    concurrency: options.concurrency ?? CLIENT_DEFAULTS.concurrency,
    ratePerMinute: options.rate ?? CLIENT_DEFAULTS.rate,
    dedupe: options.dedupe ?? CLIENT_DEFAULTS.dedupe,
    maxRetries: call.maxRetries ?? options.maxRetries ?? CLIENT_DEFAULTS.maxRetries,
    maxWaitMs: call.maxWait ?? options.maxWait ?? CLIENT_DEFAULTS.maxWait,
  };
}

/** The engine's run of a call's rows into its queue (batch-run.ts StartJob); `oneItem`: a one-item call's, in the one-item wire form. */
export function startJob(context: ClientContext, target: QueryTarget, call: BatchOptions, oneItem = false): StartJob {
  const { options } = context;
  return async (rows, queue, signal): Promise<JobOutcome> => {
    const connected = await context.service();
    const prepare = createPreparer({
      level: target.level,
      endpoints: target.paramEndpoints,
      fixedParams: Object.fromEntries(Object.entries(call.params ?? {}).map(([name, value]) => [name, String(value)])),
      map: { ...call.columns },
      metaColumn: META.name,
      fromItems: true,
    });
    const { events, emit } = jobEvents(context, call);
    const store = jobStore(context, connected, call);
    const outcome = await runJob({
      target,
      rows,
      prepare,
      service: call.timeout === undefined ? connected : withDeadline(connected, call.timeout),
      openWriter: () => Promise.resolve(queue),
      ...(store ? { store } : {}),
      caps: {
        maxComponents: call.maxComponents ?? options.maxComponents,
        maxCost: call.maxCost ?? options.maxCost,
        maxCostMonth: options.maxCostMonth,
      },
      ...(options.prices ? { prices: priceText(options.prices) } : {}),
      pace: jobPace(context, call),
      clock: context.clock,
      signal,
      finishInFlightOnOutputFailure: true,
      ...(oneItem ? { oneItemGet: true } : {}),
      events,
    });
    const closing = outcome.storeCloseFailure;
    if (closing !== undefined)
      context.log.warn(`the store failed as it closed: ${closing instanceof Error ? closing.message : JSON.stringify(closing)}`);
    const paid = queue.paidNotHandedOver;
    if (paid.records === 0) {
      emit({ type: 'end', summary: outcome.summary });
      return outcome;
    }
    // A paid answer is never dropped without a word: counted in the event and the summary.
    emit({ type: 'paid-not-handed-over', ...paid, kept: store !== undefined });
    const summary = { ...outcome.summary, paidNotHandedOver: { ...paid } };
    emit({ type: 'end', summary });
    return { ...outcome, summary };
  };
}
