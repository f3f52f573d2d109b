import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { addresses, call, VALMONTE } from './http.js';

const HEADERS = ['x-ratelimit-period', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const rateHeaders = (headers: Headers) => HEADERS.map((name) => headers.get(name));

describe('rate limits, component counting and billing', () => {
  let sandbox: RunningSandbox;
  let clock = Date.UTC(2025, 0, 1, 0, 0, 10);
  const start = async (options: SandboxOptions) => {
    sandbox = await startSandbox({ now: () => clock, ...options });
    return sandbox;
  };
  afterEach(async () => {
    await sandbox.close();
    clock = Date.UTC(2025, 0, 1, 0, 0, 10);
  });

  it("counts components as the spec's examples do", async () => {
    await start({});
    const count = async (run: () => Promise<unknown>) => {
      const before = sandbox.usage().components;
      await run();
      return sandbox.usage().components - before;
    };
    expect(await count(() => call(sandbox, '/v2/property/value', { query: VALMONTE }))).toBe(1);
    expect(
      await count(() =>
        call(sandbox, '/v2/property/component_mget', { query: { ...VALMONTE, components: 'property/value,property/school' } }),
      ),
    ).toBe(2);
    expect(await count(() => call(sandbox, '/v2/property/value', { body: addresses(3) }))).toBe(3);
    const four = 'property/value,property/school,property/census,property/block_crime';
    expect(await count(() => call(sandbox, '/v2/property/component_mget', { query: { components: four }, body: addresses(4) }))).toBe(16);
    const reply = await call(sandbox, '/v2/property/value', { query: VALMONTE });
    expect(rateHeaders(reply.headers)).toEqual(['60', '250', String(250 - 1 - 2 - 3 - 16 - 1), String(Date.UTC(2025, 0, 1, 0, 1) / 1000)]);
  });

  it('puts the rate-limit headers, one value per window, on every response', async () => {
    await start({
      rateLimits: [
        { limit: 5, periodSeconds: 1 },
        { limit: 20, periodSeconds: 60 },
      ],
    });
    const replies = [
      await call(sandbox, '/v2/property/value', { query: VALMONTE }),
      await call(sandbox, '/v2/property/value', { query: { zipcode: '1' } }),
      await call(sandbox, '/v2/property/value', { query: VALMONTE, credentials: 'x:y' }),
      await call(sandbox, '/v2/nowhere/at_all', { query: VALMONTE }),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 400, 401, 404]);
    for (const reply of replies) {
      expect(reply.headers.get('x-ratelimit-period')).toBe('1,60');
      expect(reply.headers.get('x-ratelimit-limit')).toBe('5,20');
      expect(reply.headers.get('x-ratelimit-remaining')).toBe('4,19');
      expect(reply.headers.get('x-ratelimit-reset')).toBe(`${clock / 1000 + 1},${Date.UTC(2025, 0, 1, 0, 1) / 1000}`);
    }
  });

  it('refuses with 429 what does not fit a window, whole and uncounted, until the window resets', async () => {
    await start({
      rateLimits: [
        { limit: 5, periodSeconds: 1 },
        { limit: 8, periodSeconds: 60 },
      ],
    });
    expect((await call(sandbox, '/v2/property/value', { body: addresses(4) })).status).toBe(200);
    const refused = await call(sandbox, '/v2/property/value', { body: addresses(2) });
    expect(refused.status).toBe(429);
    expect(typeof refused.json.message).toBe('string');
    expect(rateHeaders(refused.headers)).toEqual(['1,60', '5,8', '1,4', `${clock / 1000 + 1},${Date.UTC(2025, 0, 1, 0, 1) / 1000}`]);
    expect(sandbox.usage()).toMatchObject({ components: 4, requests: 1 });
    clock += 1000;
    expect((await call(sandbox, '/v2/property/value', { body: addresses(2) })).status).toBe(200);
    const minute = await call(sandbox, '/v2/property/value', { body: addresses(3) });
    expect(minute.status).toBe(429);
    expect(minute.headers.get('x-ratelimit-remaining')).toBe('3,2');
    clock = Date.UTC(2025, 0, 1, 0, 1);
    expect((await call(sandbox, '/v2/property/value', { body: addresses(3) })).status).toBe(200);
  });

  it('tells a request larger than a whole window that waiting will not help', async () => {
    await start({
      rateLimits: [
        { limit: 5, periodSeconds: 1 },
        { limit: 250, periodSeconds: 60 },
      ],
    });
    const tooLarge = await call(sandbox, '/v2/property/component_mget', {
      query: { components: 'property/value,property/school' },
      body: addresses(3),
    });
    expect(tooLarge.status).toBe(429);
    expect(tooLarge.json.message).toMatch(/needs 6 components; no window allows more than 5: send fewer items or components/);
    const merelyLate = await call(sandbox, '/v2/property/value', { body: addresses(5) }).then(() =>
      call(sandbox, '/v2/property/value', { query: VALMONTE }),
    );
    expect(merelyLate.status).toBe(429);
    expect(merelyLate.json.message).toMatch(/wait until X-RateLimit-Reset/);
  });

  it('sends no rate-limit headers when limits are off', async () => {
    await start({ rateLimits: [] });
    const reply = await call(sandbox, '/v2/property/value', { body: addresses(100) });
    expect(reply.status).toBe(200);
    expect(rateHeaders(reply.headers)).toEqual([null, null, null, null]);
  });

  it('charges list price for api_code 0 sections only, with price overrides', async () => {
    await start({ prices: { 'property/school': 1 } });
    const reply = await call(sandbox, '/v2/property/component_mget', {
      query: { components: 'property/value,property/school,property/on_market' },
      body: [VALMONTE, { address: '1 NOMATCH St', zipcode: '90274' }],
    });
    const delivered = reply.json[0]['property/on_market'].api_code === 0 ? 0.05 : 0;
    const usage = sandbox.usage();
    expect(usage.charged).toBeCloseTo(0.25 + 1 + delivered, 6);
    expect(usage.creditLeft).toBeCloseTo(200 - usage.charged, 6);
    expect(usage.byEndpoint['property/school']).toEqual({ components: 2, charged: 1 });
    expect(usage.byEndpoint['property/value']).toEqual({ components: 2, charged: 0.25 });
    await call(sandbox, '/v2/property/value', { query: { zipcode: 'x' } });
    await call(sandbox, '/v2/property/value', { query: VALMONTE, credentials: 'a:b' });
    expect(sandbox.usage().charged).toBe(usage.charged);
  });

  it('answers 402 asking for payment when a request costs more than the credit left', async () => {
    await start({ credit: 0.9 });
    expect((await call(sandbox, '/v2/property/value', { body: [VALMONTE, VALMONTE, VALMONTE] })).status).toBe(200);
    const refused = await call(sandbox, '/v2/property/value', { body: [VALMONTE] });
    expect(refused.status).toBe(402);
    expect(refused.json.message).toMatch(/payment/);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('250');
    expect(sandbox.usage()).toMatchObject({ charged: 0.75, creditLeft: 0.15, requests: 1, components: 3 });
    const nomatch = await call(sandbox, '/v2/property/value', { body: [{ address: '1 NOMATCH Rd', zipcode: '90274' }] });
    expect(nomatch.status).toBe(200);
    expect((await call(sandbox, '/v2/property/geocode', { query: VALMONTE })).status).toBe(200);
  });
});
