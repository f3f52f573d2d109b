import { describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { singleEndpointTarget } from '../../src/model/query-target.js';
import { DEFAULT_RETRY_POLICY } from '../../src/client/retry-policy.js';
import type { RawResponse, Service, ServiceRequest } from '../../src/client/service-client.js';
import { createPreparer } from '../../src/input/prepare.js';
import type { InputRow } from '../../src/input/row.js';
import type { OutputRecord } from '../../src/model/record.js';
import { Budget } from '../../src/pipeline/budget.js';
import { OrderedOutput } from '../../src/pipeline/ordered-output.js';
import { runBatch } from '../../src/pipeline/run-batch.js';
import { RunStats } from '../../src/pipeline/run-stats.js';
import { sendBatch } from '../../src/pipeline/send-batch.js';
import type { Clock } from '../../src/throttle/clock.js';
import { RateLimiter } from '../../src/throttle/rate-limiter.js';

/**
 * The pipeline at the service's pace, without waiting for it: a clock that jumps when someone
 * sleeps (after letting pending I/O run, as a real timer would), and a service that answers on
 * the next turn of the event loop and counts what it charged.
 */
function fakeClock(): Clock {
  let now = 1_700_000_000_000;
  return {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          if (signal?.aborted) return reject(signal.reason as Error);
          now += ms;
          resolve();
        });
      }),
  };
}

const target = singleEndpointTarget(findEndpoint('property/value')!);
const rows = (count: number): InputRow[] =>
  Array.from({ length: count }, (_, i) => ({ row: i + 1, columns: { address: `${i + 1} Main St`, zipcode: '21201' } }));
const prepare = createPreparer({ level: 'property', endpoints: target.paramEndpoints, fixedParams: {}, map: {} });

interface Observed {
  written: number[];
  charged: number[];
  /** The most charged-but-unwritten items beyond those in flight, seen at any request. */
  worstLag: number;
  sent: number;
}

async function run(
  count: number,
  options: { perMinute: number; respond?: (request: ServiceRequest, observed: Observed) => RawResponse | undefined; budget?: Budget; signal?: AbortSignal },
) {
  const clock = fakeClock();
  const observed: Observed = { written: [], charged: [], worstLag: 0, sent: 0 };
  let inFlightItems = 0;
  const service: Service = {
    async send(request) {
      observed.sent += 1;
      const lag = observed.charged.length - observed.written.length - inFlightItems;
      observed.worstLag = Math.max(observed.worstLag, lag);
      const items = request.items as { address: string }[];
      inFlightItems += items.length;
      await new Promise((resolve) => setImmediate(resolve));
      inFlightItems -= items.length;
      const scripted = options.respond?.(request, observed);
      if (scripted) return scripted;
      observed.charged.push(...items.map((item) => Number.parseInt(item.address, 10)));
      const chunks = items.map(() => ({ address_info: {}, 'property/value': { api_code: 0, api_code_description: 'ok', result: {} } }));
      return { status: 200, headers: {}, body: JSON.stringify(chunks), elapsedMs: 1, redact: (text) => text };
    },
  };
  const writer = { write: (record: OutputRecord) => void observed.written.push(record.row), close: async () => undefined };
  const stats = new RunStats();
  const limiter = new RateLimiter({ initialPerMinute: options.perMinute, firstRequestComponents: 10, marginFraction: 0, minMarginMs: 0, transitMs: 0, maxWaitMs: 3_600_000 }, clock);
  const output = new OrderedOutput(writer, stats);
  const result = await runBatch(
    (async function* () {
      yield* rows(count);
    })(),
    prepare,
    (items, signal, deliver) =>
      sendBatch(
        items,
        {
        client: service,
        limiter,
        target,
        sectionKeys: ['property/value'],
        retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 2, maxWaitMs: 3_600_000 },
        stats,
        clock,
        signal,
        ...(options.budget ? { budget: options.budget } : {}),
        },
        deliver,
      ),
    output,
    stats,
    { batchSize: 100, concurrency: 4, maxHoldRows: 1_600, dedupeCapacity: 0, ...(options.signal ? { signal: options.signal } : {}) },
  );
  return { observed, result, stats };
}

describe('the pipeline at the service pace', () => {
  it('writes paid answers as they come: written rows never trail charged ones by more than what is in flight', async () => {
    const { observed, result } = await run(1_200, { perMinute: 250 });
    expect(result.fatal).toBeUndefined();
    expect(observed.written).toEqual(Array.from({ length: 1_200 }, (_, i) => i + 1));
    // At 250 a minute the probe's remainder used to lose its turn to later batches at every window.
    expect(observed.worstLag).toBe(0);
    expect(observed.charged).toHaveLength(1_200);
  });

  it('a 402 mid-run stops sending and writes every answered row', async () => {
    const { observed, result } = await run(600, {
      perMinute: 1_000,
      respond: (_request, seen) => (seen.charged.length >= 250 ? { status: 402, headers: {}, body: '{"message":"add payment information"}', elapsedMs: 1, redact: (text) => text } : undefined),
    });
    expect((result.fatal as Error).message).toMatch(/credit/i);
    expect(observed.written).toEqual(observed.charged.slice().sort((a, b) => a - b).slice(0, observed.written.length));
    // Every charged row is written: nothing paid is lost.
    expect(new Set(observed.written)).toEqual(new Set(observed.charged));
  });

  it('a budget stops on the last item it pays for, and the written rows are exactly those', async () => {
    const { observed, result } = await run(500, { perMinute: 250, budget: new Budget({ maxComponents: 137 }, 0.25, 1) });
    expect(result.fatal).toBeDefined();
    expect(observed.charged).toHaveLength(137);
    expect(observed.written).toEqual(Array.from({ length: 137 }, (_, i) => i + 1));
  });

  it('a stop is prompt: nothing is sent after it, the waits end, and what was answered is written', async () => {
    const stop = new AbortController();
    const { observed, result } = await run(2_000, {
      perMinute: 250,
      respond: (_request, seen) => {
        if (seen.charged.length >= 500 && !stop.signal.aborted) stop.abort(new Error('SIGTERM'));
        return undefined;
      },
      signal: stop.signal,
    });
    expect(result.interrupted).toBe(true);
    const sentAtStop = observed.sent;
    expect(sentAtStop).toBeLessThan(20);
    expect(new Set(observed.written)).toEqual(new Set(observed.charged));
    expect(observed.written).toEqual(Array.from({ length: observed.written.length }, (_, i) => i + 1));
  });
});
