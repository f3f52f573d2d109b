import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../src/cli/exit-codes.js';
import { BudgetReachedError } from '../../src/errors/index.js';
import { Budget } from '../../src/pipeline/budget.js';
import { addressRows, fakeWorld, runPipeline, upTo, type FakeWorld } from '../helpers/fake-pipeline.js';
import type { FakeReply, SeenRequest } from '../helpers/fake-service.js';

/**
 * The pipeline at the service's pace, without waiting for it: a clock that jumps to the next
 * timer when everything else has run, and a service that answers on it and counts what it charged.
 */
interface Lag {
  /** The most charged-but-unwritten items beyond those in flight, seen at any request. */
  worst: number;
}

async function run(
  count: number,
  options: {
    perMinute: number;
    script?: (request: SeenRequest, world: FakeWorld) => FakeReply | undefined;
    budget?: Budget;
    signal?: AbortSignal;
  },
) {
  const lag: Lag = { worst: 0 };
  const world: FakeWorld = fakeWorld({
    script: (request) => {
      const answeredUnwritten = world.service.charged.length - (world.service.inFlightItems - request.items.length) - world.written.length;
      lag.worst = Math.max(lag.worst, answeredUnwritten);
      return options.script?.(request, world);
    },
  });
  const { result } = await runPipeline(world, {
    rows: addressRows(count),
    throttle: { initialPerMinute: options.perMinute, marginFraction: 0, minMarginMs: 0 },
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return {
    written: world.written.map((record) => record.row),
    charged: world.service.charged,
    sent: world.service.requests.length,
    lag,
    result,
  };
}

describe('the pipeline at the service pace', () => {
  it('writes paid answers as they come: written rows never trail charged ones by more than what is in flight', async () => {
    const { written, charged, lag, result } = await run(1_200, { perMinute: 250 });
    expect(result.fatal).toBeUndefined();
    expect(written).toEqual(upTo(1_200));
    // At 250 a minute the probe's remainder used to lose its turn to later batches at every window.
    expect(lag.worst).toBe(0);
    expect(charged).toHaveLength(1_200);
  });

  it('a 402 mid-run stops sending and writes every answered row', async () => {
    const { written, charged, result } = await run(600, {
      perMinute: 1_000,
      script: (_request, world) =>
        world.service.charged.length >= 250 ? { status: 402, body: { message: 'add payment information' } } : undefined,
    });
    expect((result.fatal as Error).message).toMatch(/credit/i);
    expect(written).toEqual(
      charged
        .slice()
        .sort((a, b) => a - b)
        .slice(0, written.length),
    );
    // Every charged row is written: nothing paid is lost.
    expect(new Set(written)).toEqual(new Set(charged));
  });

  it('a budget stops on the last item it pays for, and the written rows are exactly those', async () => {
    const { written, charged, result } = await run(500, {
      perMinute: 250,
      budget: new Budget({ maxComponents: 137 }, { components: 1, price: 0.25 }),
    });
    expect(result.fatal).toBeInstanceOf(BudgetReachedError);
    expect(exitCodeFor(result.fatal)).toBe(EXIT.budgetReached);
    expect(charged).toHaveLength(137);
    expect(written).toEqual(upTo(137));
  });

  it('a stop is prompt: nothing is sent after it, the waits end, and what was answered is written', async () => {
    const stop = new AbortController();
    let sentAtStop = 0;
    const { written, charged, sent, result } = await run(2_000, {
      perMinute: 250,
      script: (_request, world) => {
        // A signal comes in a turn of the event loop of its own, between sends.
        if (world.service.charged.length >= 500 && sentAtStop === 0) {
          sentAtStop = -1;
          setImmediate(() => {
            sentAtStop = world.service.requests.length;
            stop.abort(new Error('SIGTERM'));
          });
        }
        return undefined;
      },
      signal: stop.signal,
    });
    expect(result.interrupted).toBe(true);
    expect(sentAtStop).toBeGreaterThan(0);
    expect(sent).toBe(sentAtStop);
    expect(new Set(written)).toEqual(new Set(charged));
    expect(written).toEqual(upTo(written.length));
  });
});
