import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ITEMS, TEST_KEY_PREFIX, type RunningSandbox } from '../../src/sandbox/index.js';
import { addresses, call, dataSandbox, VALMONTE } from './http.js';

describe('authentication and test keys', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox({ key: 'k1', secret: 's1', rateLimits: [{ limit: 1000, periodSeconds: 60 }] });
  });
  afterAll(() => sandbox.close());

  it.each([
    ['no credentials', null],
    ['a wrong secret', 'k1:nope'],
    ['a wrong key', 'other:s1'],
    ['the test key with a wrong secret', `${TEST_KEY_PREFIX}k1:nope`],
  ])('answers 401 with an empty body and the rate-limit headers for %s', async (_name, credentials) => {
    const reply = await call(sandbox, '/v2/property/value', { query: VALMONTE, credentials });
    expect(reply.status).toBe(401);
    expect(reply.text).toBe('');
    expect(reply.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  it('requires the same credentials for the usage report', async () => {
    expect((await call(sandbox, '/__sandbox/usage', { credentials: null })).status).toBe(401);
    const usage = await call(sandbox, '/__sandbox/usage');
    expect(usage.status).toBe(200);
    expect(usage.json).toMatchObject({ components: expect.any(Number), creditLeft: expect.any(Number) });
  });

  it('lets the test key query every item on the test list, at every level', async () => {
    const credentials = `${TEST_KEY_PREFIX}k1:s1`;
    for (const item of TEST_ITEMS.property) {
      const reply = await call(sandbox, '/v2/property/value', { query: item, credentials });
      expect(reply.json[0].address_info.status.match, JSON.stringify(item)).toBe(true);
      expect(reply.json[0]['property/value'].api_code).toBe(0);
    }
    const blocks = await call(sandbox, '/v2/block/crime', { body: TEST_ITEMS.block, credentials });
    expect(blocks.json.map((chunk: any) => chunk['block/crime'].api_code)).toEqual(TEST_ITEMS.block.map(() => 0));
  });

  it('answers other items to a test key with 204 sections and an explanation, uncharged', async () => {
    const credentials = `${TEST_KEY_PREFIX}k1:s1`;
    const before = sandbox.usage().charged;
    const reply = await call(sandbox, '/v2/property/value', { body: [VALMONTE, addresses(1)[0]!], credentials });
    expect(reply.status).toBe(200);
    expect(reply.json[0]['property/value'].api_code).toBe(0);
    expect(reply.json[1]['property/value'].api_code).toBe(204);
    expect(reply.json[1].address_info.status).toMatchObject({ match: false, errors: ['test key: item not in the test list'] });
    const block = await call(sandbox, '/v2/block/crime', { query: { block_id: '111111111111111' }, credentials });
    expect(block.json[0]['block/crime'].api_code).toBe(204);
    expect(sandbox.usage().charged).toBeCloseTo(before + 0.25, 6);
  });
});
