import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { call, dataSandbox, VALMONTE } from './http.js';

const BLOCK = { block_id: '060376703022003' };

describe('keys the spec does not list, as clients written for the real service send them', () => {
  let lenient: RunningSandbox;
  let strict: RunningSandbox;
  beforeAll(async () => {
    [lenient, strict] = await Promise.all([dataSandbox(), dataSandbox({ strict: true })]);
  });
  afterAll(() => Promise.all([lenient.close(), strict.close()]));

  it('are ignored by default and named in X-Sandbox-Ignored-Keys, in the query string and in POST items', async () => {
    const get = await call(lenient, '/v2/property/value', { query: { ...VALMONTE, client_value: 900000, other_field: 'x' } });
    expect(get.status, get.text).toBe(200);
    expect(get.headers.get('x-sandbox-ignored-keys')).toBe('client_value, other_field');
    const plain = await call(lenient, '/v2/property/value', { query: VALMONTE });
    expect(plain.headers.get('x-sandbox-ignored-keys')).toBeNull();
    expect(get.json[0]['property/value']).toEqual(plain.json[0]['property/value']);

    const post = await call(lenient, '/v2/block/crime', { body: [{ ...BLOCK, property_type: 'SFD' }], query: { colour: 'red' } });
    expect(post.status, post.text).toBe(200);
    expect(post.headers.get('x-sandbox-ignored-keys')).toBe('colour, property_type');
  });

  it('still need identical key sets across the items of a POST', async () => {
    const reply = await call(lenient, '/v2/block/crime', { body: [{ ...BLOCK, property_type: 'SFD' }, BLOCK] });
    expect(reply.status).toBe(400);
    expect(reply.json.message).toMatch(/item 1: keys .* differ from item 0/);
  });

  it('get a 400 naming them with --strict', async () => {
    const get = await call(strict, '/v2/property/value', { query: { ...VALMONTE, client_value: 900000 } });
    expect(get.status).toBe(400);
    expect(get.json).toEqual({ code: 400, message: expect.stringMatching(/query string: unknown key "client_value" for property\/value/) });
    const post = await call(strict, '/v2/block/crime', { body: [{ ...BLOCK, property_type: 'SFD' }] });
    expect(post.json).toEqual({ code: 400, message: expect.stringMatching(/item 0: unknown key "property_type"/) });
  });
});

describe('error bodies', () => {
  it('carry code (the HTTP status) beside message for 400, 402, 404 and 429; a 401 stays empty', async () => {
    const sandbox = await startSandbox({ rateLimits: [{ limit: 1, periodSeconds: 60 }], credit: 0 });
    try {
      expect((await call(sandbox, '/v2/property/nowhere', { query: VALMONTE })).json).toEqual({ code: 404, message: expect.any(String) });
      expect((await call(sandbox, '/v2/property/value', { query: { zipcode: '90274' } })).json).toEqual({
        code: 400,
        message: expect.any(String),
      });
      expect((await call(sandbox, '/v2/property/value', { query: VALMONTE })).json).toEqual({
        code: 402,
        message: expect.stringMatching(/payment/),
      });
      expect((await call(sandbox, '/v2/property/value', { body: [VALMONTE, VALMONTE] })).json).toEqual({
        code: 429,
        message: expect.any(String),
      });
      const unauthorised = await call(sandbox, '/v2/property/value', { query: VALMONTE, credentials: 'wrong:pair' });
      expect([unauthorised.status, unauthorised.text]).toEqual([401, '']);
    } finally {
      await sandbox.close();
    }
  });
});
