import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ITEMS, type RunningSandbox } from '../../src/sandbox/index.js';
import { call, dataSandbox } from './http.js';

describe('test lists', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox();
  });
  afterAll(() => sandbox.close());

  it('GET /v2/property/test_addresses lists the items a test key may query, each ready to send', async () => {
    const listed = await call(sandbox, '/v2/property/test_addresses');
    expect(listed.status).toBe(200);
    expect(listed.json).toHaveLength(TEST_ITEMS.property.length);
    expect(listed.json[0]).toEqual({
      address: '43 Valmonte Plz',
      unit: null,
      city: 'Palos Verdes Peninsula',
      state: 'CA',
      zipcode: '90274',
      slug: '43-Valmonte-Plz-Palos-Verdes-Peninsula-CA-90274',
    });
    const testKey = `test_${sandbox.key}:${sandbox.secret}`;
    const items = listed.json.map(({ address, zipcode }: { address: string; zipcode: string }) => ({ address, zipcode }));
    const answered = await call(sandbox, '/v2/property/value', { body: items, credentials: testKey });
    expect(answered.json.map((chunk: any) => chunk['property/value'].api_code)).toEqual(items.map(() => 0));
  });

  it('lists blocks, ZIPs and metro areas at /v2/block/test_blocks, /v2/zip/test_zipcodes and /v2/msa/test_msas', async () => {
    expect((await call(sandbox, '/v2/block/test_blocks')).json).toEqual(TEST_ITEMS.block.map(({ block_id }) => ({ block_id })));
    expect((await call(sandbox, '/v2/zip/test_zipcodes')).json).toContainEqual({ zipcode: '90274' });
    expect((await call(sandbox, '/v2/msa/test_msas')).json).toContainEqual({ msa: '31080' });
  });
});
