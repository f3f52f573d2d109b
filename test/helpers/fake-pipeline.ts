import { findEndpoint } from '../../src/catalog/index.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../src/policy/policy.js';
import { createPreparer } from '../../src/input/prepare.js';
import type { InputRow } from '../../src/input/row.js';
import { singleEndpointTarget, type QueryTarget } from '../../src/model/query-target.js';
import type { OutputRecord } from '../../src/model/record.js';
import type { Budget } from '../../src/pipeline/budget.js';
import { OrderedOutput } from '../../src/pipeline/ordered-output.js';
import { runBatch, type BatchRunResult } from '../../src/pipeline/run-batch.js';
import { RunStats } from '../../src/pipeline/run-stats.js';
import { sendBatch, type Exchange, type Pacer } from '../../src/pipeline/send-batch.js';
import type { KeptAnswers } from '../../src/pipeline/kept-answers.js';
import { sectionPricesOf } from '../../src/pipeline/pricing.js';
import { DEFAULT_THROTTLE_POLICY, type ThrottlePolicy } from '../../src/policy/policy.js';
import { RateLimiter } from '../../src/throttle/rate-limiter.js';
import { FakeClock } from './fake-clock.js';
import { FakeService, type FakeServiceOptions } from './fake-service.js';

export const PROPERTY_VALUE = singleEndpointTarget(findEndpoint('property/value')!);

/** Rows `1 Main St`, `2 Main St`...: the fake service reads the row back from the address. */
export function addressRows(count: number, columns: (row: number) => Record<string, unknown> = () => ({})): InputRow[] {
  return Array.from({ length: count }, (_, i) => ({
    row: i + 1,
    columns: { address: `${i + 1} Main St`, zipcode: '21201', ...columns(i + 1) },
  }));
}

/** A clock, a service on it, and what the pipeline has written so far (live, for scripts to look at). */
export interface FakeWorld {
  clock: FakeClock;
  service: FakeService;
  /** Records in the order they reached the writer. */
  written: OutputRecord[];
}

export function fakeWorld(service: FakeServiceOptions = {}, clock = new FakeClock()): FakeWorld {
  return { clock, service: new FakeService(clock, service), written: [] };
}

export interface PipelineOptions {
  rows: InputRow[];
  target?: QueryTarget;
  /** The limiter's policy over the defaults (waits of up to an hour); ignored when `limiter` is given. */
  throttle?: Partial<ThrottlePolicy>;
  limiter?: Pacer;
  retry?: Partial<RetryPolicy>;
  budget?: Budget;
  signal?: AbortSignal;
  batchSize?: number;
  concurrency?: number;
  dedupeCapacity?: number;
  /** The store's side of the run (a fake of its own: test/pipeline/answers-kept-first.test.ts). */
  kept?: KeptAnswers;
  /** How long an item waits for the store's word before it is bought whoever holds it (runJob: CLAIMS.waitLimitMs). */
  claimWaitLimitMs?: number;
  onResponse?: (exchange: Exchange) => void;
}

export interface PipelineOutcome {
  result: BatchRunResult;
  stats: RunStats;
  records: OutputRecord[];
}

/** The rate limiter on the world's clock: the default policy, waits of up to an hour, then `throttle`. */
export function limiterFor(world: FakeWorld, throttle: Partial<ThrottlePolicy> = {}): RateLimiter {
  return new RateLimiter({ ...DEFAULT_THROTTLE_POLICY, maxWaitMs: 3_600_000, ...throttle }, world.clock);
}

/** runBatch and sendBatch as main wires them, with the world's clock and service. */
export async function runPipeline(world: FakeWorld, options: PipelineOptions): Promise<PipelineOutcome> {
  const target = options.target ?? PROPERTY_VALUE;
  const stats = new RunStats();
  const limiter = options.limiter ?? limiterFor(world, options.throttle);
  const writer = { write: (record: OutputRecord) => void world.written.push(record) };
  const output = new OrderedOutput(writer, stats);
  const prepare = createPreparer({ level: target.level, endpoints: target.paramEndpoints, fixedParams: {}, map: {} });
  const batchSize = options.batchSize ?? 100;
  const concurrency = options.concurrency ?? 4;
  const result = await runBatch(
    asyncRows(options.rows),
    prepare,
    (items, batchTarget, signal, deliver) =>
      sendBatch(
        items,
        batchTarget,
        {
          client: world.service,
          limiter,
          sectionPrices: sectionPricesOf(target),
          retry: { ...DEFAULT_RETRY_POLICY, maxRetries: 2, maxWaitMs: 3_600_000, ...options.retry },
          stats,
          clock: world.clock,
          signal,
          ...(options.budget ? { budget: options.budget } : {}),
          ...(options.onResponse ? { onResponse: options.onResponse } : {}),
        },
        deliver,
      ),
    output,
    stats,
    {
      target,
      clock: world.clock,
      ...(options.kept ? { kept: options.kept } : {}),
      ...(options.claimWaitLimitMs !== undefined ? { claimWaitLimitMs: options.claimWaitLimitMs } : {}),
      batchSize,
      concurrency,
      maxHoldRows: Math.max(1_000, batchSize * concurrency * 4),
      dedupeCapacity: options.dedupeCapacity ?? 0,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  return { result, stats, records: world.written };
}

/** The rows as the readers hand them over: one at a time, asynchronously. */
function asyncRows(rows: readonly InputRow[]): AsyncIterable<InputRow> {
  return {
    [Symbol.asyncIterator]: () => {
      let at = 0;
      return {
        next: (): Promise<IteratorResult<InputRow>> =>
          Promise.resolve(at < rows.length ? { done: false, value: rows[at++]! } : { done: true, value: undefined }),
      };
    },
  };
}

/** 1..n */
export const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);
