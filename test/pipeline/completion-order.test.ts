import { describe, expect, it } from 'vitest';
import { keySetOf } from '../../src/catalog/index.js';
import type { PendingItem, SendableItem } from '../../src/batching/batch.js';
import { DEFAULT_RETRY_POLICY } from '../../src/policy/policy.js';
import { createPreparer } from '../../src/input/prepare.js';
import type { OutputRecord } from '../../src/model/record.js';
import { RunStats } from '../../src/pipeline/run-stats.js';
import { sendBatch, type Pacer } from '../../src/pipeline/send-batch.js';
import type { Reservation } from '../../src/throttle/rate-limiter.js';
import { ServiceClock } from '../../src/throttle/service-clock.js';
import { FAKE_EPOCH } from '../helpers/fake-clock.js';
import { addressRows, fakeWorld, PROPERTY_VALUE, runPipeline, upTo, type FakeWorld } from '../helpers/fake-pipeline.js';
import { seededRandom } from '../helpers/fake-service.js';

/** Output order is input order, whatever order the answers come back in. */

describe('records in input order', () => {
  it('under concurrency and random latency, with mixed key sets and invalid rows: one record per row, each with its own answer', async () => {
    const random = seededRandom(7);
    const world = fakeWorld({ latencyMs: () => Math.floor(random() * 400) });
    // Every third row has a unit (another key set, so other batches); every 17th has no address (invalid).
    const rows = addressRows(450, (row) => ({
      ...(row % 3 === 0 ? { unit: `Apt ${row}` } : {}),
      ...(row % 17 === 0 ? { address: '' } : {}),
    }));
    await runPipeline(world, { rows, batchSize: 7, concurrency: 6, throttle: { initialPerMinute: 1_000_000 } });

    // The answers really did come back out of order.
    const requests = world.service.requests;
    expect(requests.some((request, i) => requests.slice(i + 1).some((later) => later.answeredAt! < request.answeredAt!))).toBe(true);

    expect(world.written.map((record) => record.row)).toEqual(upTo(450));
    for (const record of world.written) {
      if (record.row % 17 === 0) {
        expect(record.status).toBe('invalid_input');
      } else {
        expect(record.status).toBe('ok');
        expect(record.input.address).toBe(`${record.row} Main St`);
        // Its own answer, not a neighbour's.
        expect((record.chunk!.address_info as { address_full: string }).address_full).toBe(record.input.address);
      }
    }
    // One key set per POST, and every valid row charged once.
    for (const request of requests) expect(new Set(request.items.map((item) => keySetOf(item as Record<string, string>))).size).toBe(1);
    expect(world.service.charged.slice().sort((a, b) => a - b)).toEqual(upTo(450).filter((row) => row % 17 !== 0));
  });
});

/** A pacer that grants `parts` (in items) one after another, `gapMs` apart on the world's clock, and notes what it is told. */
function steppedPacer(world: FakeWorld, parts: number[], gapMs: number) {
  const observed: { reservation: Reservation; windows: number }[] = [];
  const refunded: Reservation[] = [];
  const paused: number[] = [];
  let sequence = 0;
  const pacer: Pacer = {
    async *grants(components, options) {
      const unit = options.unit ?? components;
      let left = components;
      for (const [i, part] of parts.entries()) {
        if (left <= 0) return;
        if (i > 0) await world.clock.sleep(gapMs, options.signal);
        const granted = Math.min(left, part * unit);
        left -= granted;
        sequence += granted;
        yield { components: granted, sequence };
      }
    },
    observe: (reservation, windows) => observed.push({ reservation, windows: windows.length }),
    refund: (reservation) => refunded.push(reservation),
    pauseUntil: (until) => paused.push(until),
    serviceClock: new ServiceClock(),
  };
  return { pacer, observed, refunded, paused };
}

function pendingItems(count: number): PendingItem[] {
  const prepare = createPreparer({ level: 'property', endpoints: PROPERTY_VALUE.paramEndpoints, fixedParams: {}, map: {} });
  return addressRows(count).map((row) => ({ prepared: prepare(row) as SendableItem, duplicates: [] }));
}

describe('a batch granted in parts', () => {
  it('goes out part by part as each grant comes, in row order, and each part is delivered as soon as it is answered', async () => {
    const world = fakeWorld({ windows: [{ limit: 1_000, periodSeconds: 60 }], latencyMs: () => 100 });
    const { pacer, observed } = steppedPacer(world, [3, 4, 3], 1_000);
    const deliveries: { at: number; rows: number[]; records: OutputRecord[] }[] = [];
    const outcome = await sendBatch(
      pendingItems(10),
      PROPERTY_VALUE,
      {
        client: world.service,
        limiter: pacer,
        sectionPrices: {},
        retry: DEFAULT_RETRY_POLICY,
        stats: new RunStats(),
        clock: world.clock,
        signal: new AbortController().signal,
      },
      (part, records) => deliveries.push({ at: world.clock.elapsed(), rows: part.map((pending) => pending.prepared.row), records }),
    );
    expect(outcome).toEqual({});
    expect(world.service.requests.map((request) => ({ at: request.at - world.service.requests[0]!.at, rows: request.rows }))).toEqual([
      { at: 0, rows: [1, 2, 3] },
      { at: 1_000, rows: [4, 5, 6, 7] },
      { at: 2_000, rows: [8, 9, 10] },
    ]);
    // The first part's records are handed on when it is answered, a second before the last part even goes.
    expect(deliveries.map(({ at, rows }) => ({ at, rows }))).toEqual([
      { at: 100, rows: [1, 2, 3] },
      { at: 1_100, rows: [4, 5, 6, 7] },
      { at: 2_100, rows: [8, 9, 10] },
    ]);
    expect(deliveries.flatMap(({ records }) => records.map((record) => [record.row, record.status]))).toEqual(
      upTo(10).map((row) => [row, 'ok']),
    );
    // Each answer's headers go back to the pacer with its own reservation.
    expect(observed.map(({ reservation, windows }) => [reservation.components, windows])).toEqual([
      [3, 1],
      [4, 1],
      [3, 1],
    ]);
  });

  it('hands a refused part (429) back to the pacer, pauses it until the reset, and resends just that part', async () => {
    const world: FakeWorld = fakeWorld({
      windows: [{ limit: 1_000, periodSeconds: 60 }],
      script: (request) =>
        request.index === 1
          ? { status: 429, body: { message: 'slow down' }, headers: { ...world.service.rateHeaders(), 'x-ratelimit-remaining': '0' } }
          : undefined,
    });
    const { pacer, observed, refunded, paused } = steppedPacer(world, [5, 5, 5], 10);
    const stats = new RunStats();
    const deliveries: number[][] = [];
    await sendBatch(
      pendingItems(10),
      PROPERTY_VALUE,
      {
        client: world.service,
        limiter: pacer,
        sectionPrices: {},
        retry: { ...DEFAULT_RETRY_POLICY, rateLimitJitterMs: 0 },
        stats,
        clock: world.clock,
        signal: new AbortController().signal,
      },
      (part) => deliveries.push(part.map((pending) => pending.prepared.row)),
    );
    expect(world.service.requests.map((request) => [request.rows, request.outcome])).toEqual([
      [[1, 2, 3, 4, 5], 200],
      [[6, 7, 8, 9, 10], 429],
      [[6, 7, 8, 9, 10], 200],
    ]);
    expect(refunded).toEqual([observed[1]!.reservation]);
    // Until the window's reset (the next minute) plus the policy's margin.
    expect(paused).toEqual([FAKE_EPOCH + 60_000 + DEFAULT_RETRY_POLICY.rateLimitMarginMs]);
    expect(stats.rateLimitWaits).toBe(1);
    expect(deliveries).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10],
    ]);
  });
});
