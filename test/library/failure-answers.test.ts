import { afterEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  createClient,
  ItemFailedError,
  QuotaWaitError,
  ServiceError,
  type BatchRecord,
  type Client,
} from '../../src/library/index.js';
import { chunkFor, scriptedServerPerTest } from '../helpers/scripted-server.js';

const scripted = scriptedServerPerTest();
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function clientFor(env: Record<string, string>): Promise<Client> {
  // One item a request, so that each item's answer is its own.
  const client = createClient({ env, store: false, maxRetries: 1, batchSize: 1 });
  clients.push(client);
  return Promise.resolve(client);
}

const VALMONTE = { address: '43 Valmonte Plaza', zipcode: '90274' };
const BAD = { address: '1 Refused Rd', zipcode: '90274' };
const unavailable = { status: 503, body: '{"code":503,"message":"try later"}', headers: { 'x-request-id': 'req-503', 'retry-after': '0' } };

describe('every failure the service answered carries its status, headers and requestId', () => {
  it('thrown by a one-item call: an ItemFailedError after the retries of a 503, a BadRequestError for a 400', async () => {
    const env = await scripted.serve((request) =>
      request.url.includes('Refused')
        ? { status: 400, body: '{"code":400,"message":"address is not valid"}', headers: { 'x-request-id': 'req-400' } }
        : unavailable,
    );
    const client = await clientFor(env);
    const failed = await client.property.value(VALMONTE).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ItemFailedError);
    expect(failed).toMatchObject({ status: 503, requestId: 'req-503' });
    expect((failed as ItemFailedError).headers).toMatchObject({ 'x-request-id': 'req-503', 'retry-after': '0' });

    const refused = await client.property.value(BAD).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ status: 400, requestId: 'req-400', serviceMessage: 'address is not valid' });
  });

  it("thrown as a QuotaWaitError when a 429's reset is later than maxWait: the 429's own", async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 3_600);
    const headers = {
      'x-request-id': 'req-429',
      'x-ratelimit-limit': '250',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-period': '3600',
      'x-ratelimit-reset': reset,
    };
    const env = await scripted.serve(() => ({ status: 429, body: '{"code":429,"message":"slow down"}', headers }));
    const client = createClient({ env, store: false, maxWait: 1_000 });
    clients.push(client);
    const waited = await client.property.value(VALMONTE).catch((error: unknown) => error);
    expect(waited).toBeInstanceOf(QuotaWaitError);
    expect(waited).toMatchObject({ status: 429, requestId: 'req-429', headers: expect.objectContaining({ 'x-ratelimit-reset': reset }) });
  });

  it("in a batch's records: the error and invalid_input records carry the answer as `failure`", async () => {
    const env = await scripted.serve((request) => {
      const items = JSON.parse(request.body || '[]') as { address: string }[];
      if (items.some((item) => item.address.includes('Refused')))
        return { status: 400, body: '{"code":400,"message":"item 0: address is not valid"}', headers: { 'x-request-id': 'req-400' } };
      if (items.some((item) => item.address.includes('Down'))) return unavailable;
      return { status: 200, body: JSON.stringify(items.map(() => chunkFor(['property/value']))) };
    });
    const client = await clientFor(env);
    const records: BatchRecord[] = [];
    const items = [VALMONTE, { address: '2 Down St', zipcode: '90274' }, BAD];
    for await (const record of client.property.value.batch(items)) records.push(record);
    expect(records.map((record) => record.status)).toEqual(['ok', 'error', 'invalid_input']);
    expect(records[0]).not.toHaveProperty('failure');
    expect(records[1]!.failure).toMatchObject({
      status: 503,
      requestId: 'req-503',
      headers: expect.objectContaining({ 'retry-after': '0' }),
    });
    expect(records[2]!.failure).toMatchObject({ status: 400, requestId: 'req-400', serviceMessage: 'item 0: address is not valid' });
  });
});
