import { describe, expect, it } from 'vitest';
import { direct, gatewayPerTest } from './helpers.js';

const start = gatewayPerTest();

const VALMONTE = 'address=43+Valmonte+Plaza&zipcode=90274';
const HOMES = [
  { address: '43 Valmonte Plaza', zipcode: '90274', meta: 'crm-1' },
  { address: '7500 Melrose Ave', zipcode: '90046', meta: 'crm-2' },
  { address: '1 NOMATCH Rd', zipcode: '21202', meta: 'crm-3' },
];
const json = { 'content-type': 'application/json' };

describe("the gateway speaks the service's API, as the sandbox does", () => {
  it('answers a GET with the one chunk the service gives, and the rate-limit headers of the account', async () => {
    const { request, sandbox } = await start();
    const response = await request('alice', `/v2/property/value?${VALMONTE}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('1000000');
    expect(response.headers.get('x-ratelimit-period')).toBe('60');
    const answered: unknown = await response.json();
    expect(answered).toEqual(await (await direct(sandbox, `/v2/property/value?${VALMONTE}`)).json());
  });

  it('answers a POST with a chunk per item in order, each with its own meta, and a component_mget', async () => {
    const { request, sandbox } = await start();
    const body = JSON.stringify(HOMES);
    const path = '/v2/property/component_mget?components=property/value,property/school';
    const response = await request('alice', path, { method: 'POST', headers: json, body });
    expect(response.status).toBe(200);
    const chunks = (await response.json()) as Record<string, unknown>[];
    expect(chunks.map((chunk) => chunk.meta)).toEqual(['crm-1', 'crm-2', 'crm-3']);
    expect(chunks).toEqual(await (await direct(sandbox, path, { method: 'POST', headers: json, body })).json());
    // An item at another level, by its own path: block_info and the block's section.
    const block = await request('alice', '/v2/block/crime', {
      method: 'POST',
      headers: json,
      body: JSON.stringify([{ block_id: '060376703241005' }]),
    });
    expect(((await block.json()) as Record<string, unknown>[])[0]).toHaveProperty('block_info.block_id', '060376703241005');
  });

  it('refuses credentials it does not know with a 401 and no body at all', async () => {
    const { request, gateway } = await start();
    for (const response of [
      await request('alice', `/v2/property/value?${VALMONTE}`, { secret: 'not-the-secret' }),
      await request('mallory', `/v2/property/value?${VALMONTE}`, { secret: 'anything' }),
      await fetch(`${gateway.url}/v2/property/value?${VALMONTE}`),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('content-length')).toBe('0');
      expect(await response.text()).toBe('');
    }
  });

  it("refuses a request the service would refuse with the sandbox's 400 and its very message", async () => {
    const { request, sandbox } = await start();
    const cases: [string, RequestInit][] = [
      ['/v2/property/value?zipcode=90274', {}],
      ['/v2/property/value', { method: 'POST', headers: json, body: JSON.stringify(Array.from({ length: 101 }, () => HOMES[0])) }],
      ['/v2/property/value', { method: 'POST', headers: json, body: JSON.stringify([{ address: 'a' }, { slug: 'b' }]) }],
      ['/v2/property/value', { method: 'POST', headers: json, body: '[{"address": ' }],
      ['/v2/property/value', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '[]' }],
      ['/v2/property/component_mget?components=property/value,%20property/school', { method: 'POST', headers: json, body: '[]' }],
    ];
    for (const [path, init] of cases) {
      const response = await request('alice', path, init);
      expect(response.status, path).toBe(400);
      const body = (await response.json()) as { code: number; message: string };
      expect(body).toEqual(await (await direct(sandbox, path, init)).json());
      expect(body.code).toBe(400);
    }
  });

  it('answers an unknown path 404 and another method 405, as the sandbox does', async () => {
    const { request } = await start();
    const missing = await request('alice', '/v2/property/not_an_endpoint?zipcode=90274');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ code: 404, message: expect.stringContaining('No endpoint at /v2/property/not_an_endpoint') });
    const put = await request('alice', '/v2/property/value', { method: 'PUT', body: '[]' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
  });

  it('refuses a body larger than a request of 100 items needs, before reading it whole', async () => {
    const { request } = await start();
    const huge = JSON.stringify([{ address: '1 Main St', zipcode: '21201', meta: 'x'.repeat(2_000_000) }]);
    const response = await request('alice', '/v2/property/value', { method: 'POST', headers: json, body: huge });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ code: 413, message: expect.stringContaining('larger than 1048576 bytes') });
  });

  it('names the keys it left out of what it sent on, as the sandbox names those it ignores', async () => {
    const { request, sandbox } = await start();
    const response = await request('alice', `/v2/property/value?${VALMONTE}&owner=someone`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-propdata-ignored-keys')).toBe('owner');
    expect(sandbox.usage().components).toBe(1);
  });
});
