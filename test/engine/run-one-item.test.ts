import { describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import type { RawResponse, ServiceRequest } from '../../src/client/service-client.js';
import { runOneItem } from '../../src/engine/run-one-item.js';
import { singleEndpointTarget } from '../../src/model/query-target.js';
import { FAKE_EPOCH, FakeClock } from '../helpers/fake-clock.js';

const VALUE = singleEndpointTarget(findEndpoint('property/value')!);
const ITEM = { row: 1, columns: { address: '1 Main St', zipcode: '21201' }, item: { address: '1 Main St', zipcode: '21201' } };
const PACE = { batchSize: 1, concurrency: 1, ratePerMinute: 250, dedupe: false, maxRetries: 5, maxWaitMs: 90_000 };

/**
 * A service whose clock is `offsetMs` ahead of ours (behind when negative), refusing the first
 * request (429): its window of 60 s resets at the next whole minute of its clock, as its headers say.
 */
function refusingOnce(clock: FakeClock, offsetMs: number) {
  const sent: { at: number; request: ServiceRequest }[] = [];
  const client = {
    send(request: ServiceRequest): Promise<RawResponse> {
      sent.push({ at: clock.now(), request });
      const serviceNow = clock.now() + offsetMs;
      const reset = Math.ceil(serviceNow / 60_000) * 60_000;
      const refused = sent.length === 1;
      return Promise.resolve({
        status: refused ? 429 : 200,
        headers: {
          date: new Date(serviceNow).toUTCString(),
          'x-ratelimit-period': '60',
          'x-ratelimit-limit': '250',
          'x-ratelimit-remaining': refused ? '0' : '249',
          'x-ratelimit-reset': String(reset / 1000),
        },
        body: refused ? '{"message":"rate limit exceeded"}' : '[ {"property/value": {"api_code": 0, "result": {"value": 1}}} ]',
        elapsedMs: 0,
        redact: (text) => text,
      });
    },
  };
  return {
    sent,
    service: { client, connection: { baseUrl: new URL('https://api.example.com'), key: 'k', secret: 's' }, close: () => Promise.resolve() },
  };
}

describe('one item through the engine (a one-off)', () => {
  for (const [name, offsetMs] of [
    ['5 s ahead', 5_000],
    ['5 s behind', -5_000],
  ] as const) {
    it(`goes as the spec's one-item GET, waits a 429 out as its reset comes on this machine (the service ${name}), and gives the body as sent`, async () => {
      // 30 s into a minute here: the service's minute ends in 25 s (ahead) or 35 s (behind).
      const clock = new FakeClock(FAKE_EPOCH + 30_000);
      const { sent, service } = refusingOnce(clock, offsetMs);
      const answer = await runOneItem({ target: VALUE, item: ITEM, service, caps: {}, pace: PACE, clock });
      expect(sent.map(({ request }) => [request.method, request.path, request.query])).toEqual([
        ['GET', 'v2/property/value', { address: '1 Main St', zipcode: '21201' }],
        ['GET', 'v2/property/value', { address: '1 Main St', zipcode: '21201' }],
      ]);
      const resetHere = FAKE_EPOCH + 60_000 - offsetMs;
      // Not before the reset (refused again), nor 5 s after it; the retry policy's margin and jitter only.
      expect(sent[1]!.at).toBeGreaterThanOrEqual(resetHere);
      expect(sent[1]!.at).toBeLessThan(resetHere + 1_000);
      expect(answer.body).toBe('[ {"property/value": {"api_code": 0, "result": {"value": 1}}} ]');
      expect(answer.chunk).toEqual({ 'property/value': { api_code: 0, result: { value: 1 } } });
    });
  }

  it('sends an item that carries meta as a one-item POST (meta exists only on POST items)', async () => {
    const clock = new FakeClock(FAKE_EPOCH);
    const { sent, service } = refusingOnce(clock, 0);
    const item = { ...ITEM, item: { ...ITEM.item, meta: 'row-7' } };
    await runOneItem({ target: VALUE, item, service, caps: {}, pace: PACE, clock });
    expect(sent.at(-1)!.request).toMatchObject({ method: 'POST', items: [{ address: '1 Main St', zipcode: '21201', meta: 'row-7' }] });
  });
});
