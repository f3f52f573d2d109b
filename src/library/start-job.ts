import { basename } from 'node:path';
import { META } from '../catalog/index.js';
import type { Service as Sender } from '../client/service-client.js';
import { runOnSession, type JobEvents, type JobOutcome, type SessionJob } from '../engine/run-job.js';
import type { Session } from '../engine/session.js';
import { createPreparer } from '../input/prepare.js';
import type { QueryTarget } from '../model/query-target.js';
import type { StartJob } from './batch-run.js';
import { CLIENT_DEFAULTS, type BatchOptions, type ClientOptions } from './client-options.js';
import type { LibraryLog } from './library-log.js';
import type { RunEvent } from './run-events.js';

/** What every call of one client shares. */
export interface ClientContext {
  options: ClientOptions;
  log: LibraryLog;
  /** The client's session (the service, the store, the pacer), opened on first use. */
  session(): Promise<Session>;
}

/** The run's name in the spend log when the caller gives none: the script that runs it. */
export const defaultLabel = () => `library ${basename(process.argv[1] ?? 'node')}`;

/** Prices as the engine takes them (the CLI's --price text). */
export const priceText = (prices: Readonly<Record<string, number>> | undefined) =>
  prices && Object.fromEntries(Object.entries(prices).map(([name, usd]) => [name, String(usd)]));

/** The session's sender with a call's own deadline on each of its requests (CallOptions.timeout). */
const withDeadline = (session: Session, timeoutMs: number): Sender => ({
  send: (request) => session.service.client.send({ ...request, timeoutMs }),
});

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
function jobPace({ options }: ClientContext, call: BatchOptions): SessionJob['pace'] {
  return {
    batchSize: options.batchSize ?? CLIENT_DEFAULTS.batchSize,
    concurrency: options.concurrency ?? CLIENT_DEFAULTS.concurrency,
    dedupe: options.dedupe ?? CLIENT_DEFAULTS.dedupe,
    maxRetries: call.maxRetries ?? options.maxRetries ?? CLIENT_DEFAULTS.maxRetries,
    maxWaitMs: call.maxWait ?? options.maxWait ?? CLIENT_DEFAULTS.maxWait,
  };
}

/** The engine's run of a call's rows into its queue (batch-run.ts StartJob); `oneItem`: a one-item call's, in the one-item wire form. */
export function startJob(context: ClientContext, target: QueryTarget, call: BatchOptions, oneItem = false): StartJob {
  const { options } = context;
  return async (rows, queue, signal): Promise<JobOutcome> => {
    const session = await context.session();
    const prepare = createPreparer({
      level: target.level,
      endpoints: target.paramEndpoints,
      fixedParams: Object.fromEntries(Object.entries(call.params ?? {}).map(([name, value]) => [name, String(value)])),
      map: { ...call.columns },
      metaColumn: META.name,
      fromItems: true,
    });
    const { events, emit } = jobEvents(context, call);
    const maxAge = call.maxAge ?? options.maxAge;
    const outcome = await runOnSession(session, {
      target,
      rows,
      prepare,
      ...(call.timeout !== undefined ? { client: withDeadline(session, call.timeout) } : {}),
      openWriter: () => Promise.resolve(queue),
      reuse: { ...(call.job !== undefined ? { job: call.job } : {}), ...(maxAge !== undefined ? { maxAgeMs: maxAge } : {}) },
      caps: {
        maxComponents: call.maxComponents ?? options.maxComponents,
        maxCost: call.maxCost ?? options.maxCost,
        maxCostMonth: options.maxCostMonth,
      },
      ...(options.prices ? { prices: priceText(options.prices) } : {}),
      pace: jobPace(context, call),
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
    emit({ type: 'paid-not-handed-over', ...paid, kept: session.runs !== undefined });
    const summary = { ...outcome.summary, paidNotHandedOver: { ...paid } };
    emit({ type: 'end', summary });
    return { ...outcome, summary };
  };
}
