import { describe, expect, it, vi } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { tempStorePath } from '../store/helpers/temp-store.js';
import { gatewayPerTest, issueKeys } from './helpers.js';

const start = gatewayPerTest();
const VALMONTE = 'address=43+Valmonte+Plaza&zipcode=90274';
/** A refresh, and a login's scrypt on a loaded machine. */
const PATIENCE = { timeout: 10_000 };

describe('propdata keys', () => {
  it('issues a key with its secret once, lists keys without either, and revokes one', async () => {
    const store = tempStorePath();
    const added = await runMain(['keys', 'add', 'alice', '--budget-month', '50', '--store', store]);
    expect(added.code).toBe(0);
    const secret = /secret: (\S+)/.exec(added.stdout)![1]!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(added.stdout).toContain('key alice issued: a budget of 50.00 USD a month; every endpoint');
    const json = await runMain(['keys', 'add', 'etl', '--endpoints', 'property/value,block/*', '--json', '--store', store]);
    expect(JSON.parse(json.stdout)).toEqual({ key: 'etl', secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });

    const listed = await runMain(['keys', 'list', '--store', store]);
    expect(listed.stdout).toMatch(/^alice\s+live\s+50\.00\s+0\.00\s+-\s+every one\s+\d{4}-\d\d-\d\d$/m);
    expect(listed.stdout).toMatch(/^etl\s+live\s+-\s+0\.00\s+-\s+property\/value,block\/\*/m);
    const asJson = await runMain(['keys', 'list', '--json', '--store', store]);
    expect(asJson.stdout).not.toContain(secret);
    expect(asJson.stdout).not.toContain('scrypt');
    expect(JSON.parse(asJson.stdout)[0]).toMatchObject({
      name: 'alice',
      live: true,
      budgetMonth: 50,
      spentThisMonth: 0,
      endpoints: null,
      revoked: null,
    });

    expect((await runMain(['keys', 'revoke', 'alice', '--store', store])).stdout).toMatch(/^key alice revoked on \d{4}-\d\d-\d\d/);
    expect((await runMain(['keys', 'list', '--store', store])).stdout).toMatch(/^alice\s+revoked \d{4}-\d\d-\d\d/m);
  });

  it("changes a key's budget, endpoints, expiry and rate without a new secret, rotates its secret, and lists each key's state", async () => {
    const store = tempStorePath();
    await runMain(['keys', 'add', 'alice', '--budget-month', '50', '--store', store]);
    await runMain(['keys', 'add', 'old', '--expires', '2020-01-01', '--store', store]);
    const set = await runMain([
      'keys',
      'set',
      'alice',
      '--budget-month',
      '80',
      '--endpoints',
      'block/*',
      '--expires',
      '2099-06-30',
      '--rate',
      '600',
      '--store',
      store,
    ]);
    expect([set.code, set.stdout]).toEqual([0, 'key alice changed, its secret kept: gateways apply it within 2 s\n']);
    expect(JSON.parse((await runMain(['keys', 'list', '--json', '--store', store])).stdout)[0]).toMatchObject({
      name: 'alice',
      state: 'live',
      budgetMonth: 80,
      endpoints: ['block/*'],
      ratePerMinute: 600,
      expires: '2099-06-30T00:00:00.000Z',
    });
    const rotated = await runMain(['keys', 'rotate', 'alice', '--grace', '2h', '--json', '--store', store]);
    expect(JSON.parse(rotated.stdout)).toEqual({
      key: 'alice',
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      oldSecretValidUntil: expect.any(String),
    });
    const listed = (await runMain(['keys', 'list', '--store', store], { columns: 200 })).stdout;
    expect(listed).toMatch(
      /^alice\s+live until 2099-06-30 00:00Z; old secret until \d{4}-\d\d-\d\d \d\d:\d\dZ\s+80\.00\s+0\.00\s+600\s+block\/\*/m,
    );
    expect(listed).toMatch(/^old\s+expired 2020-01-01\s/m);
    const cleared = await runMain([
      'keys',
      'set',
      'alice',
      '--budget-month',
      'none',
      '--endpoints',
      'all',
      '--expires',
      'never',
      '--rate',
      'none',
      '--store',
      store,
    ]);
    expect(cleared.code).toBe(0);
    expect(JSON.parse((await runMain(['keys', 'list', '--json', '--store', store])).stdout)[0]).toMatchObject({
      state: 'rotating',
      budgetMonth: null,
      endpoints: null,
      ratePerMinute: null,
      expires: null,
    });
    const nothing = await runMain(['keys', 'set', 'alice', '--store', store]);
    expect([nothing.code, nothing.stderr]).toEqual([2, expect.stringContaining('name what to change')]);
    const nobody = await runMain(['keys', 'rotate', 'nobody', '--store', store]);
    expect([nobody.code, nobody.stderr]).toEqual([2, expect.stringContaining('no live key named nobody')]);
  });

  it('refuses a name taken by a live key, a name no client could send, an endpoint the catalog lacks, and revoking no key', async () => {
    const store = tempStorePath();
    await runMain(['keys', 'add', 'alice', '--store', store]);
    const twice = await runMain(['keys', 'add', 'alice', '--store', store]);
    expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining('a live key named alice exists: revoke it first')]);
    const spaced = await runMain(['keys', 'add', 'two words', '--store', store]);
    expect([spaced.code, spaced.stderr]).toEqual([2, expect.stringContaining("a key's name is 1 to 64 letters")]);
    const misspelt = await runMain(['keys', 'add', 'bob', '--endpoints', 'property/valeu', '--store', store]);
    expect([misspelt.code, misspelt.stderr]).toEqual([2, expect.stringContaining('did you mean property/value')]);
    const nobody = await runMain(['keys', 'revoke', 'nobody', '--store', store]);
    expect([nobody.code, nobody.stderr]).toEqual([2, expect.stringContaining('no live key named nobody')]);
  });
});

describe("a gateway's keys", () => {
  it('opens the endpoints a key is allowed, and refuses the others with a 403 naming them', async () => {
    const { request, sandbox } = await start({ keys: [{ name: 'etl', endpoints: ['property/value', 'block/*'] }] });
    expect((await request('etl', `/v2/property/value?${VALMONTE}`)).status).toBe(200);
    expect((await request('etl', '/v2/block/crime?block_id=060376703241005')).status).toBe(200);
    const school = await request('etl', `/v2/property/school?${VALMONTE}`);
    expect(school.status).toBe(403);
    expect(await school.json()).toEqual({
      code: 403,
      message: 'key "etl" may not call property/school; it may call property/value, block/*',
    });
    // An mget is allowed only when every component is.
    expect((await request('etl', `/v2/property/component_mget?components=property/value,property/school&${VALMONTE}`)).status).toBe(403);
    expect(sandbox.usage().components).toBe(2);
  });

  it('takes a key added while it runs, and stops taking a revoked one, within its refresh', async () => {
    const { request, storePath } = await start({ gateway: { refreshMs: 20 } });
    const { bob } = await issueKeys(storePath, [{ name: 'bob' }]);
    await vi.waitFor(
      async () => expect((await request('bob', `/v2/property/value?${VALMONTE}`, { secret: bob! })).status).toBe(200),
      PATIENCE,
    );
    expect((await runMain(['keys', 'revoke', 'bob', '--store', storePath])).code).toBe(0);
    await vi.waitFor(
      async () => expect((await request('bob', `/v2/property/value?${VALMONTE}`, { secret: bob! })).status).toBe(401),
      PATIENCE,
    );
  });

  it("takes a key's new budget without a new secret, its new secret at once and its old one for the grace only, and no expired key", async () => {
    const { request, storePath, secrets } = await start({ keys: [{ name: 'alice', budgetMonth: 0.1 }], gateway: { refreshMs: 20 } });
    expect((await request('alice', `/v2/property/value?${VALMONTE}`)).status).toBe(402);
    await runMain(['keys', 'set', 'alice', '--budget-month', '1', '--store', storePath]);
    await vi.waitFor(async () => expect((await request('alice', `/v2/property/value?${VALMONTE}`)).status).toBe(200), PATIENCE);
    const rotated = JSON.parse((await runMain(['keys', 'rotate', 'alice', '--json', '--store', storePath])).stdout) as { secret: string };
    await vi.waitFor(
      async () => expect((await request('alice', `/v2/property/value?${VALMONTE}`, { secret: rotated.secret })).status).toBe(200),
      PATIENCE,
    );
    expect((await request('alice', `/v2/property/value?${VALMONTE}`)).status).toBe(200);
    // Rotated again with no grace: only the newest secret opens it.
    const again = JSON.parse((await runMain(['keys', 'rotate', 'alice', '--grace', '0', '--json', '--store', storePath])).stdout) as {
      secret: string;
    };
    await vi.waitFor(
      async () => expect((await request('alice', `/v2/property/value?${VALMONTE}`, { secret: rotated.secret })).status).toBe(401),
      PATIENCE,
    );
    expect((await request('alice', `/v2/property/value?${VALMONTE}`, { secret: again.secret })).status).toBe(200);
    expect((await request('alice', `/v2/property/value?${VALMONTE}`, { secret: secrets.alice! })).status).toBe(401);
    await runMain(['keys', 'set', 'alice', '--expires', '2020-01-01', '--store', storePath]);
    await vi.waitFor(
      async () => expect((await request('alice', `/v2/property/value?${VALMONTE}`, { secret: again.secret })).status).toBe(401),
      PATIENCE,
    );
  }, 60_000);

  it("holds a key to its share of the account's rate: a 429 with when it fits, components from the store given back", async () => {
    const { request, sandbox } = await start({ keys: [{ name: 'etl', ratePerMinute: 3 }] });
    const home = (i: number) => `/v2/property/value?address=${i}+Harbor+St&zipcode=21201`;
    for (const i of [1, 2]) expect((await request('etl', home(i))).status).toBe(200);
    // Answered from the store: nothing sent, nothing taken of the share.
    expect((await request('etl', home(1))).status).toBe(200);
    expect((await request('etl', home(3))).status).toBe(200);
    const over = await request('etl', home(4));
    expect(over.status).toBe(429);
    // When the first of the minute's components leaves the window.
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(((await over.json()) as { message: string }).message).toMatch(/^key "etl" has used its share of 3 components a minute/);
    const wide = await request('etl', '/v2/property/value', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([1, 2, 3, 4].map((i) => ({ address: `${i} Harbor St`, zipcode: '21201' }))),
    });
    expect(wide.status).toBe(429);
    expect(sandbox.usage().components).toBe(3);
  });

  it('files what each key bought and took from the store, for propdata usage --by key', async () => {
    const { request, gateway, storePath } = await start({ keys: [{ name: 'alice' }, { name: 'bob' }] });
    await request('alice', `/v2/property/value?${VALMONTE}`);
    await request('bob', `/v2/property/value?${VALMONTE}`);
    await request('bob', `/v2/property/component_mget?components=property/value,property/school&${VALMONTE}`);
    await gateway.close(0);
    const usage = await runMain(['usage', '--by', 'key', '--all-accounts', '--json', '--store', storePath]);
    const rows = (JSON.parse(usage.stdout) as { rows: Record<string, unknown>[] }).rows;
    expect(rows).toEqual([
      { key: 'alice', requests: 1, components: 1, billed: 1, cost: 0.25, fromStore: 0, saved: 0 },
      // bob's value came from the store (alice bought it), and so did the value section of his mget.
      { key: 'bob', requests: 1, components: 1, billed: 1, cost: expect.any(Number), fromStore: 1, saved: 0.5 },
    ]);
    const table = await runMain(['usage', '--by', 'key', '--all-accounts', '--store', storePath]);
    expect(table.stdout).toMatch(/^KEY\s+REQUESTS\s+COMPONENTS/);
  });

  it('files what a gateway bought under one run a start, in propdata usage --by run, and each request under the key that asked', async () => {
    const storePath = tempStorePath();
    const first = await start({ keys: [{ name: 'alice' }, { name: 'bob' }], storePath });
    await first.request('alice', '/v2/property/value?address=1+Harbor+St&zipcode=21201');
    await first.request('bob', '/v2/property/value?address=2+Harbor+St&zipcode=21201');
    await first.request('bob', '/v2/property/value?address=3+Harbor+St&zipcode=21201');
    await first.gateway.close(0);
    const second = await start({ keys: [], storePath });
    await second.request('alice', '/v2/property/value?address=4+Harbor+St&zipcode=21201', { secret: first.secrets.alice! });
    await second.gateway.close(0);
    const byRun = await runMain(['usage', '--by', 'run', '--all-accounts', '--json', '--store', storePath]);
    const runs = (JSON.parse(byRun.stdout) as { rows: { run: string; requests: number }[] }).rows;
    expect(runs.map((row) => [row.run.replace(/^\S+ \S+ \d+ /, ''), row.requests])).toEqual([
      [expect.stringMatching(/^serve test \d+$/), 3],
      [expect.stringMatching(/^serve test \d+$/), 1],
    ]);
    const byKey = await runMain(['usage', '--by', 'key', '--all-accounts', '--json', '--store', storePath]);
    const keys = (JSON.parse(byKey.stdout) as { rows: { key: string; requests: number }[] }).rows;
    expect(keys.map((row) => [row.key, row.requests])).toEqual([
      ['alice', 2],
      ['bob', 2],
    ]);
  });
});
