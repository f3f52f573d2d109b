import { describe, expect, it } from 'vitest';
import { addressRows, fakeWorld, runPipeline, upTo, type FakeWorld } from '../helpers/fake-pipeline.js';
import { seededRandom, type FakeReply, type SeenRequest } from '../helpers/fake-service.js';

/** 5xx answers, dropped connections and spurious 429s are retried; no row is lost, duplicated or turned into an error. */

const HTML_PAGE = '<html><body><h1>502 Bad Gateway</h1></body></html>';

/**
 * Faults as the sandbox injects them, before anything is charged: one of each on the second, third
 * and fourth requests, then drawn from a seeded generator.
 */
function faulty(world: () => FakeWorld, seed: number, rates: { fail: number; drop: number; spurious429: number }) {
  const random = seededRandom(seed);
  const forced: Record<number, number> = { 1: 0, 2: rates.fail, 3: rates.fail + rates.drop };
  return (request: SeenRequest): FakeReply | undefined => {
    const draw = forced[request.index] ?? random();
    if (draw < rates.fail)
      return { status: [500, 502, 503][request.index % 3]!, body: HTML_PAGE, headers: { 'content-type': 'text/html' } };
    if (draw < rates.fail + rates.drop) return { drop: true, sent: true };
    if (draw < rates.fail + rates.drop + rates.spurious429) {
      // Every window said to reset within the second: come back almost at once.
      const second = Math.floor(world().clock.now() / 1000);
      return {
        status: 429,
        body: { message: 'Rate limit exceeded' },
        headers: { ...world().service.rateHeaders(), 'x-ratelimit-reset': String(second + 1) },
      };
    }
    return undefined;
  };
}

describe('injected faults', () => {
  it('are retried without losing or duplicating a row', async () => {
    const random = seededRandom(11);
    const world: FakeWorld = fakeWorld({
      windows: [{ limit: 1_000_000, periodSeconds: 60 }],
      latencyMs: () => Math.floor(random() * 30),
      script: faulty(() => world, 3, { fail: 0.1, drop: 0.05, spurious429: 0.05 }),
    });
    const { result, stats } = await runPipeline(world, { rows: addressRows(300), batchSize: 10, retry: { maxRetries: 10 } });
    expect(result.fatal).toBeUndefined();
    expect(world.written.map((record) => record.row)).toEqual(upTo(300));
    expect(new Set(world.written.map((record) => record.status))).toEqual(new Set(['ok']));
    // Each row was answered (and charged) exactly once.
    expect(world.service.charged.slice().sort((a, b) => a - b)).toEqual(upTo(300));
    // The faults did happen, and the summary counts them.
    const failed = world.service.requests.filter((request) => typeof request.outcome === 'number' && request.outcome >= 500);
    const dropped = world.service.requests.filter((request) => request.outcome === 'dropped');
    expect(failed.length).toBeGreaterThan(0);
    expect(dropped.length).toBeGreaterThan(0);
    expect(world.service.answered(429).length).toBeGreaterThan(0);
    expect(stats.retries).toBe(failed.length + dropped.length);
    expect(stats.retriedPossiblyCharged).toBe(dropped.length);
    expect(stats.rateLimitWaits).toBe(world.service.answered(429).length);
  });

  it('that outlast the retries make their rows error, with the cause, and the run goes on', async () => {
    const world = fakeWorld({ script: (request) => (request.rows.includes(7) ? { status: 503, body: HTML_PAGE } : undefined) });
    const { result, stats } = await runPipeline(world, { rows: addressRows(20), batchSize: 5, retry: { maxRetries: 3 } });
    expect(result.fatal).toBeUndefined();
    expect(world.written.map((record) => [record.row, record.status])).toEqual(
      upTo(20).map((row) => [row, row >= 6 && row <= 10 ? 'error' : 'ok']),
    );
    expect(world.written[6]!.error).toMatch(/503/);
    // The first try and three retries, with growing waits between them.
    const tries = world.service.requests.filter((request) => request.rows.includes(7));
    expect(tries).toHaveLength(4);
    const gaps = tries.slice(1).map((request, i) => request.at - tries[i]!.answeredAt!);
    expect(gaps[0]).toBeGreaterThanOrEqual(250);
    expect(gaps[2]).toBeGreaterThanOrEqual(1_000);
    expect(stats.retries).toBe(3);
  });
});
