import { afterEach, describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { FairShare } from '../../src/gateway/fair-share.js';
import { openUpstream, type Upstream, type UpstreamCall } from '../../src/gateway/upstream.js';
import { singleEndpointTarget } from '../../src/model/query-target.js';
import { openSession, type Session } from '../../src/engine/session.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { FakeService } from '../helpers/fake-service.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const VALUE = singleEndpointTarget(findEndpoint('property/value')!);

/** A client's calls: `calls` of 10 items each, its rows numbered from `first` (the service sees the row in each address). */
function callsOf(client: string, first: number, calls: number): UpstreamCall[] {
  return Array.from({ length: calls }, (_, call) => ({
    target: VALUE,
    items: Array.from({ length: 10 }, (_, i) => ({ address: `${first + call * 10 + i} Main St`, zipcode: '21201' })),
    params: {},
    client,
    maxAgeMs: undefined,
    maxWaitMs: 3_600_000,
    signal: new AbortController().signal,
  }));
}

/** Which client a row is: A's from 100, B's from 200, C's from 300. */
const clientOf = (row: number) => 'ABC'[Math.floor(row / 100) - 1]!;

describe('fair turns', () => {
  let session: Session | undefined;
  afterEach(async () => {
    await session?.close();
  });

  async function gatewayUpstream(clock: FakeClock, service: FakeService): Promise<Upstream> {
    const path = tempStorePath();
    session = await openSession({
      service: {
        client: service,
        connection: { baseUrl: new URL('https://api.example.com'), key: 'key', secret: 'secret' },
        close: () => Promise.resolve(),
      },
      store: {
        path,
        account: 'https://api.example.com key:0000000000000000',
        runLabel: 'fair turns',
        journal: `${path}.journal`,
        outageWaitMs: 0,
      },
      clock,
      ratePerMinute: 250,
      maxWaitMs: 3_600_000,
    });
    return openUpstream({ session, maxRetries: 2 });
  }

  it('serve a client with one request before the fifth of another that asked first', async () => {
    const clock = new FakeClock();
    const service = new FakeService(clock, { windows: [{ limit: 20, periodSeconds: 1 }], latencyMs: () => 40 });
    const gateway = await gatewayUpstream(clock, service);
    const calls = [...callsOf('A', 100, 5), ...callsOf('B', 200, 1), ...callsOf('C', 300, 1)];
    const results = await Promise.all(calls.map((call) => gateway.fetch(call)));
    expect(results.every((result) => result.answers.every((answer) => answer.kind === 'answer'))).toBe(true);
    const order = service.requests.map((request) => clientOf(request.rows[0]!));
    // A's first call went first (and alone: the probe that learns the windows); then B and C before A's second.
    expect(order.slice(0, 3)).toEqual(['A', 'B', 'C']);
    expect(service.answered(429)).toEqual([]);
  });

  it('give clients that all keep asking a turn each, a window at a time, whoever asked first', async () => {
    const clock = new FakeClock();
    const service = new FakeService(clock, { windows: [{ limit: 30, periodSeconds: 1 }], latencyMs: () => 40 });
    const gateway = await gatewayUpstream(clock, service);
    const calls = [...callsOf('A', 100, 6), ...callsOf('B', 200, 6), ...callsOf('C', 300, 6)];
    await Promise.all(calls.map((call) => gateway.fetch(call)));
    const served = { A: 0, B: 0, C: 0 };
    for (const request of service.requests) {
      for (const row of request.rows) served[clientOf(row) as keyof typeof served] += 1;
      // At no point is a client more than one request (10 items) ahead of another.
      expect(Math.max(...Object.values(served)) - Math.min(...Object.values(served))).toBeLessThanOrEqual(20);
    }
    const finished = ['A', 'B', 'C'].map((client) =>
      Math.max(...service.requests.filter((request) => clientOf(request.rows[0]!) === client).map((request) => request.answeredAt!)),
    );
    // Each finishes in the last of the six windows.
    expect(Math.max(...finished) - Math.min(...finished)).toBeLessThan(1_000);
    expect(service.answered(429)).toEqual([]);
  });
});

describe('the fair queue', () => {
  it('tags a client back after a pause where the queue is now, not where it left off', () => {
    const share = new FairShare();
    expect(share.join('A', 10)).toBe(0);
    expect(share.join('A', 10)).toBe(10);
    share.served('A', 0, 10);
    share.served('A', 10, 10);
    expect(share.join('B', 5)).toBe(10);
    // A request that stops waiting gives its place back.
    expect(share.join('C', 50)).toBe(10);
    share.withdrawn('C', 50);
    expect(share.join('C', 5)).toBe(10);
    expect(share.waiting()).toEqual(
      new Map([
        ['B', 5],
        ['C', 5],
      ]),
    );
    expect(share.ahead('B', 5)).toBe(10);
  });
});
