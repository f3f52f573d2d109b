import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { addresses, call, dataSandbox, VALMONTE } from './http.js';

describe('api_code 204 sections', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox();
  });
  afterAll(() => sandbox.close());

  it('an address containing NOMATCH does not resolve: match false, errors, every section 204, nothing charged', async () => {
    const before = sandbox.usage().charged;
    const reply = await call(sandbox, '/v2/property/component_mget', {
      query: { components: 'property/value,property/block_crime', address: '12 NOMATCH Way', zipcode: '90274' },
    });
    const chunk = reply.json[0];
    expect(chunk.address_info.status.match).toBe(false);
    expect(chunk.address_info.status.errors.length).toBeGreaterThan(0);
    expect(chunk['property/value']).toEqual({ api_code: 204, api_code_description: 'no content', result: null });
    expect(chunk['property/block_crime'].api_code).toBe(204);
    expect(sandbox.usage().charged).toBe(before);
    expect(sandbox.usage().components).toBeGreaterThanOrEqual(2);
  });

  it('a stable few percent of well-formed addresses do not resolve', async () => {
    const items = addresses(100).concat(addresses(100, 'Oak'), addresses(100, 'Birch'), addresses(100, 'Cedar'));
    const unresolved: string[] = [];
    for (let start = 0; start < items.length; start += 100) {
      const reply = await call(sandbox, '/v2/property/geocode', { body: items.slice(start, start + 100) });
      for (const chunk of reply.json)
        if (!chunk.address_info.status.match) unresolved.push(chunk.address_info.status.requested_item.address);
    }
    expect(unresolved.length).toBeGreaterThanOrEqual(4);
    expect(unresolved.length).toBeLessThanOrEqual(24);
    const again = await call(sandbox, '/v2/property/geocode', {
      query: { address: unresolved[0]!, zipcode: items.find((item) => item.address === unresolved[0])!.zipcode },
    });
    expect(again.json[0].address_info.status.match).toBe(false);
  });

  it('listing endpoints answer 204 for a stable share of properties near 40%', async () => {
    const items = addresses(100, 'Listing');
    for (const endpoint of [
      'property/on_market',
      'property/listing_status',
      'property/rental_on_market',
      'property/rental_listing_status',
    ]) {
      const first = await call(sandbox, `/v2/${endpoint}`, { body: items });
      const second = await call(sandbox, `/v2/${endpoint}`, { body: items });
      const codes = first.json.map((chunk: any) => chunk[endpoint].api_code);
      expect(second.json.map((chunk: any) => chunk[endpoint].api_code)).toEqual(codes);
      const share = codes.filter((code: number) => code === 204).length / items.length;
      expect(share, endpoint).toBeGreaterThan(0.25);
      expect(share, endpoint).toBeLessThan(0.55);
    }
  });

  it('value_details_adjusted answers 204, uncharged, when the adjustment is beyond the model', async () => {
    const before = sandbox.usage().charged;
    const reply = await call(sandbox, '/v2/property/value_details_adjusted', { query: { ...VALMONTE, add_sqft: 6000 } });
    expect(reply.status).toBe(200);
    expect(reply.json[0]['property/value_details_adjusted'].api_code).toBe(204);
    expect(sandbox.usage().charged).toBe(before);
    const fine = await call(sandbox, '/v2/property/value_details_adjusted', { query: { ...VALMONTE, add_sqft: 300 } });
    expect(fine.json[0]['property/value_details_adjusted'].api_code).toBe(0);
  });
});
