import { describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { BudgetReachedError, CreditExhaustedError } from '../../src/errors/index.js';
import { mgetTarget } from '../../src/model/query-target.js';
import { Budget } from '../../src/pipeline/budget.js';
import { pricePerItem } from '../../src/pipeline/pricing.js';
import { addressRows, fakeWorld, runPipeline, upTo, type FakeWorld } from '../helpers/fake-pipeline.js';

/**
 * A run that stops part-way (a signal, exhausted credit, a budget) writes every answered row and
 * nothing paid is lost. Requests go out concurrently, so an answered row can follow one that was
 * never sent: without a store that row is written as `not_sent`, for the next run to send; rows
 * after the last answered one are not written at all. (With a store the output ends before the
 * first row not sent instead: kept-answers.test.ts.)
 */

const rowsOf = (world: FakeWorld) => world.written.map((record) => record.row);
const byStatus = (world: FakeWorld, status: string) =>
  world.written.filter((record) => record.status === status).map((record) => record.row);
const range = (from: number, to: number) => upTo(to).slice(from - 1);

describe('a stop mid-run', () => {
  it('writes the answered rows, the unanswered rows before them as not_sent, and nothing after', async () => {
    const stop = new AbortController();
    const world: FakeWorld = fakeWorld({
      script: (request) => {
        // Rows 6-10 fail once (a 503) and wait for their retry; rows 11-15 take a second to answer.
        if (request.rows[0] === 6) return { status: 503, body: 'down' };
        if (request.rows[0] === 11) {
          void world.clock.sleep(100).then(() => stop.abort(new Error('interrupted by SIGTERM')));
          return undefined;
        }
        return undefined;
      },
      latencyMs: (request) => (request.rows[0] === 11 ? 1_000 : 0),
    });
    const { result, stats } = await runPipeline(world, {
      rows: addressRows(40),
      batchSize: 5,
      concurrency: 2,
      signal: stop.signal,
      throttle: { initialPerMinute: 100_000 },
    });
    const stoppedAt = world.service.requests.find((request) => request.rows[0] === 11)!.at + 100;
    expect(result.interrupted).toBe(true);
    expect(result.fatal).toBeUndefined();
    expect(rowsOf(world)).toEqual(upTo(15));
    expect(byStatus(world, 'ok')).toEqual([...range(1, 5), ...range(11, 15)]);
    expect(byStatus(world, 'not_sent')).toEqual(range(6, 10));
    expect(byStatus(world, 'error')).toEqual([]);
    expect(new Set(world.written.filter((record) => record.status === 'not_sent').map((record) => record.error))).toEqual(
      new Set(['not sent: interrupted by SIGTERM; run the command again to send it']),
    );
    expect(stats.unsentWritten).toBe(5);
    expect(stats.retries).toBe(1); // the stop came while rows 6-10 waited for their retry
    // Nothing new went out after the stop; what was in flight was answered and written.
    expect(world.service.requests.filter((request) => request.at > stoppedAt)).toEqual([]);
    expect(world.service.charged.slice().sort((a, b) => a - b)).toEqual(byStatus(world, 'ok'));
  });
});

describe('a 402 mid-run', () => {
  it('stops sending at once, writes every answered row, and the unanswered rows before them as not_sent', async () => {
    const world = fakeWorld({
      script: (request) => {
        if (request.rows[0] === 6) return { status: 402, body: { code: 402, message: 'add payment information' } };
        // Rows 11-15 fail once and are waiting for their retry when the 402 comes.
        if (request.rows[0] === 11 && request.index < 5) return { status: 503, body: 'down' };
        return undefined;
      },
      // The 402 comes back after 50 ms; rows 16-25, sent beside it, are answered a second later.
      latencyMs: (request) => (request.rows[0] === 6 ? 50 : request.rows[0] === 1 || request.rows[0] === 11 ? 0 : 1_000),
    });
    const { result, stats } = await runPipeline(world, {
      rows: addressRows(50),
      batchSize: 5,
      concurrency: 4,
      throttle: { initialPerMinute: 100_000 },
    });
    const refusal = world.service.requests.find((request) => request.outcome === 402)!;
    expect(result.fatal).toBeInstanceOf(CreditExhaustedError);
    expect(result.interrupted).toBe(false);
    expect(stats.retries).toBe(1);
    expect(rowsOf(world)).toEqual(upTo(25));
    expect(byStatus(world, 'ok')).toEqual([...range(1, 5), ...range(16, 25)]);
    expect(byStatus(world, 'not_sent')).toEqual(range(6, 15));
    for (const record of world.written.filter((written) => written.status === 'not_sent')) {
      expect(record.error).toMatch(/^not sent: credit exhausted: add payment information.*; run the command again to send it$/);
    }
    // Nothing was sent once the 402 was in, not even the retry that was due, and every charged row is in the output.
    expect(world.service.requests.filter((request) => request.at > refusal.answeredAt!)).toEqual([]);
    expect(world.service.charged.slice().sort((a, b) => a - b)).toEqual(byStatus(world, 'ok'));
  });
});

describe('a budget', () => {
  it('fits the last request to what remains, down to the item, across concurrent batches', async () => {
    const world = fakeWorld({ latencyMs: (request) => 10 * (request.index % 4) });
    const { result, stats } = await runPipeline(world, {
      rows: addressRows(100),
      batchSize: 10,
      concurrency: 4,
      budget: new Budget({ maxComponents: 37 }, { components: 1, price: 0.25 }),
      throttle: { initialPerMinute: 100_000 },
    });
    expect(result.fatal).toBeInstanceOf(BudgetReachedError);
    expect((result.fatal as Error).message).toBe('stopped before --max-components 37 is passed (37 used)');
    expect(world.service.charged.slice().sort((a, b) => a - b)).toEqual(upTo(37));
    // The fourth batch goes out with just the 7 items the cap has room for.
    expect(world.service.requests.at(-1)!.rows).toEqual(range(31, 37));
    expect(rowsOf(world)).toEqual(upTo(37));
    expect(new Set(world.written.map((record) => record.status))).toEqual(new Set(['ok']));
    expect(stats.componentsUsed).toBe(37);
  });

  it('--max-cost counts every component of an mget at list price and stops before passing it', async () => {
    const target = mgetTarget(['property/value', 'property/school', 'property/census'].map((name) => findEndpoint(name)!));
    const price = pricePerItem(target);
    const world = fakeWorld({ sections: ['property/value', 'property/school', 'property/census'] });
    // Room for 7 items and most of an eighth.
    const maxCost = Number((price * 7.9).toFixed(4));
    const { result, stats } = await runPipeline(world, {
      rows: addressRows(30),
      target,
      budget: new Budget({ maxCost }, { components: 3, price: price }),
      throttle: { initialPerMinute: 100_000 },
    });
    expect(result.fatal).toBeInstanceOf(BudgetReachedError);
    expect((result.fatal as Error).message).toMatch(new RegExp(`^stopped before --max-cost ${maxCost} USD is passed`));
    expect(world.service.charged).toEqual(upTo(7));
    expect(world.service.requests.reduce((sum, request) => sum + request.components, 0)).toBe(21);
    expect(stats.componentsUsed).toBe(21);
    expect(rowsOf(world)).toEqual(upTo(7));
  });

  it('that lets one item at a time through makes progress one item per run', async () => {
    const world = fakeWorld();
    const { result } = await runPipeline(world, {
      rows: addressRows(5),
      budget: new Budget({ maxComponents: 1 }, { components: 1, price: 0.25 }),
    });
    expect(result.fatal).toBeInstanceOf(BudgetReachedError);
    expect(world.service.charged).toEqual([1]);
    expect(rowsOf(world)).toEqual([1]);
  });
});
