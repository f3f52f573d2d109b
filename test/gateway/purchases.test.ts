import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BudgetReachedError, createClient } from '../../src/library/index.js';
import { runMain } from '../helpers/run-main.js';
import { gatewayPerTest } from './helpers.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'propdata-budget-'));

const start = gatewayPerTest();
const json = { 'content-type': 'application/json' };

/** Homes `from` to `to` (inclusive), each a distinct address in Baltimore. */
const homes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ address: `${from + i} Harbor St`, zipcode: '21201', meta: `home-${from + i}` }));

const post = (items: readonly object[]) => ({ method: 'POST', headers: json, body: JSON.stringify(items) });

describe('what the gateway buys', () => {
  it('buys an item two clients need at the same moment once, and gives each client its own answer', async () => {
    const { request, sandbox } = await start({ keys: [{ name: 'alice' }, { name: 'bob' }], sandbox: { latencyMs: [150, 250] } });
    const [forAlice, forBob] = await Promise.all([
      request('alice', '/v2/property/value', post(homes(1, 100))),
      request('bob', '/v2/property/value', post(homes(51, 150))),
    ]);
    expect([forAlice.status, forBob.status]).toEqual([200, 200]);
    const aliceChunks = (await forAlice.json()) as { meta: string; address_info: { address: string } }[];
    const bobChunks = (await forBob.json()) as { meta: string; address_info: { address: string } }[];
    expect(aliceChunks.map((chunk) => chunk.meta)).toEqual(homes(1, 100).map((home) => home.meta));
    expect(bobChunks.map((chunk) => chunk.meta)).toEqual(homes(51, 150).map((home) => home.meta));
    expect(bobChunks[0]!.address_info.address).toBe('51 Harbor St');
    expect(sandbox.usage()).toMatchObject({ components: 150, chargedAgain: { sections: 0, usd: 0 } });
  });

  it('answers from the store what is younger than the gateway’s --max-age, and buys again what a request says is too old', async () => {
    const { request, sandbox } = await start();
    const path = '/v2/property/value?address=43+Valmonte+Plaza&zipcode=90274';
    const bought = await (await request('alice', path)).text();
    const kept = await request('alice', path);
    expect(kept.status).toBe(200);
    expect(await kept.text()).toBe(bought);
    expect(sandbox.usage().components).toBe(1);
    const fresh = await request('alice', path, { headers: { 'x-propdata-max-age': '0' } });
    expect(fresh.status).toBe(200);
    expect(sandbox.usage()).toMatchObject({ components: 2, chargedAgain: { sections: 1 } });
    const wrong = await request('alice', path, { headers: { 'x-propdata-max-age': 'a week' } });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({
      code: 400,
      message: expect.stringContaining('x-propdata-max-age: expected a duration such as 30d'),
    });
  });

  it("refuses with a 402 naming the key's budget what would pass it, before anything is bought, and still answers what the store holds", async () => {
    // property/value lists at 0.25 USD: a budget of 1 USD buys four.
    const { request, sandbox } = await start({ keys: [{ name: 'intern', budgetMonth: 1 }] });
    expect((await request('intern', '/v2/property/value', post(homes(1, 3)))).status).toBe(200);
    const over = await request('intern', '/v2/property/value', post(homes(4, 6)));
    expect(over.status).toBe(402);
    expect(over.headers.get('x-propdata-budget')).toBe('key');
    expect(await over.json()).toEqual({
      code: 402,
      message:
        'key "intern" would pass its budget of 1.00 USD this month (0.75 USD spent or held at list price): nothing was bought; what the store holds is still answered; ask the gateway\'s operator for more',
    });
    // Nothing of the refused request was bought: the budget's last 0.25 USD is still there.
    expect(sandbox.usage().components).toBe(3);
    expect((await request('intern', '/v2/property/value', post(homes(1, 4)))).status).toBe(200);
    expect(sandbox.usage().components).toBe(4);
    // What the store holds is answered whatever the budget; what it lacks would pass it: 402, nothing bought.
    expect((await request('intern', '/v2/property/value', post(homes(1, 4)))).status).toBe(200);
    expect((await request('intern', '/v2/property/value', post(homes(1, 5)))).status).toBe(402);
    expect(sandbox.usage()).toMatchObject({ components: 4, charged: 1 });
  });

  it('refuses an oversized request with its 402 before anything is bought, 20 items or 100, sent once or again', async () => {
    const { request, sandbox } = await start({ keys: [{ name: 'intern', budgetMonth: 1 }] });
    expect((await request('intern', '/v2/property/value', post(homes(1, 20)))).status).toBe(402);
    expect((await request('intern', '/v2/property/value', post(homes(1, 100)))).status).toBe(402);
    expect((await request('intern', '/v2/property/value', post(homes(1, 100)))).status).toBe(402);
    expect(sandbox.usage().components).toBe(0);
    // The budget is whole: four items still fit.
    expect((await request('intern', '/v2/property/value', post(homes(1, 4)))).status).toBe(200);
    expect(sandbox.usage().components).toBe(4);
  });

  it("stops the CLI through the gateway at a key's budget with the budget's exit code, naming the key and its budget", async () => {
    const { gateway, secrets, sandbox } = await start({ keys: [{ name: 'intern', budgetMonth: 1 }] });
    const env = {
      PROPDATA_BASE_URL: gateway.url,
      PROPDATA_API_KEY: 'intern',
      PROPDATA_API_SECRET: secrets.intern,
      PROPDATA_HOME: tempDir(),
    };
    const input = join(env.PROPDATA_HOME, 'homes.csv');
    writeFileSync(input, ['address,zipcode', ...homes(1, 6).map((home) => `${home.address},${home.zipcode}`)].join('\n'));
    const run = await runMain(['property', 'value', '--input', input, '--output', join(env.PROPDATA_HOME, 'out.csv'), '--no-store'], {
      env,
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('key "intern" would pass its budget of 1.00 USD this month');
    expect(run.stderr).not.toContain('credit exhausted');
    expect(sandbox.usage().charged).toBeLessThanOrEqual(1);
  });

  it("stops the library through the gateway at a key's budget with a BudgetReachedError naming the key", async () => {
    const { gateway, secrets } = await start({ keys: [{ name: 'intern', budgetMonth: 0.1 }] });
    const client = createClient({ baseUrl: gateway.url, key: 'intern', secret: secrets.intern!, store: false });
    try {
      const refused = await client.property.value({ address: '43 Valmonte Plaza', zipcode: '90274' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(BudgetReachedError);
      expect((refused as Error).message).toContain('key "intern" would pass its budget of 0.10 USD this month');
    } finally {
      await client.close();
    }
  });

  it("refuses with a 402 what would pass the account's --max-cost-month, whoever asks", async () => {
    const { request, sandbox } = await start({ keys: [{ name: 'alice' }, { name: 'bob' }], gateway: { maxCostMonth: 0.5 } });
    expect((await request('alice', '/v2/property/value', post(homes(1, 2)))).status).toBe(200);
    const over = await request('bob', '/v2/property/value', post(homes(3, 3)));
    expect(over.status).toBe(402);
    expect(over.headers.get('x-propdata-budget')).toBe('account');
    expect(((await over.json()) as { message: string }).message).toMatch(
      /^the account's budget of 0\.50 USD this month \(--max-cost-month\) would be passed \(0\.50 USD spent or held at list price\): nothing was bought/,
    );
    expect(sandbox.usage().components).toBe(2);
  });

  it('gives a request that would wait past its limit the service’s own 429, at once, with when it can go', async () => {
    // A window of a day: the second request's turn is the next UTC day.
    const { request, sandbox } = await start({ sandbox: { rateLimits: [{ limit: 10, periodSeconds: 86_400 }] } });
    expect((await request('alice', '/v2/property/value', post(homes(1, 10)))).status).toBe(200);
    const started = Date.now();
    const refused = await request('alice', '/v2/property/value', {
      ...post(homes(11, 12)),
      headers: { ...json, 'x-propdata-max-wait': '5s' },
    });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(refused.status).toBe(429);
    const nextDay = Math.ceil(Date.now() / 86_400_000) * 86_400;
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(nextDay));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBe(nextDay - Math.floor(Date.now() / 1000));
    expect(await refused.json()).toEqual({
      code: 429,
      message: expect.stringMatching(/^Rate limit: this request would wait \d+ s for its turn, past its limit/),
    });
    expect(sandbox.usage().components).toBe(10);
  });
});
