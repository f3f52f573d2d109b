import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OpenGateway } from '../../src/gateway/open-gateway.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { cutWhenRecorded, databasePerFile, freshSchema, postgresPassword } from '../helpers/postgres.js';
import { runMain } from '../helpers/run-main.js';
import { expectHeld, RACE_TIMEOUT_MS, raceBudget } from './exact-budgets.js';
import { basic, gatewayFor, issueKeys } from './helpers.js';

const database = databasePerFile();
const json = { 'content-type': 'application/json' };
const homes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ address: `${from + i} Harbor St`, zipcode: '21201', meta: `home-${from + i}` }));

/**
 * Gateways on several hosts, one account: each its own process in life (here, its own gateway in
 * this one, with its own name, connections and limiter), all on one PostgreSQL store.
 */
describe('several gateways on one PostgreSQL store', () => {
  let sandbox: RunningSandbox | undefined;
  const gateways: OpenGateway[] = [];
  const statuses: number[] = [];
  afterEach(async () => {
    for (const gateway of gateways.splice(0)) await gateway.close(0);
    await sandbox?.close();
    statuses.length = 0;
  });

  async function twoGateways(windows = [{ limit: 1_000_000, periodSeconds: 60 }]) {
    sandbox = await startSandbox({
      rateLimits: windows,
      credit: 1_000_000,
      strict: true,
      onRequest: (entry) => statuses.push(Number(entry.status)),
    });
    const store = freshSchema(database.url);
    const secrets = await issueKeys(store, [{ name: 'alice' }, { name: 'bob' }, { name: 'carol', budgetMonth: 2 }]);
    const options = { refreshMs: 50 };
    gateways.push(await gatewayFor(sandbox, store, options), await gatewayFor(sandbox, store, options));
    const ask = (gateway: OpenGateway, key: string, path: string, init: RequestInit = {}) =>
      fetch(`${gateway.url}${path}`, {
        ...init,
        headers: { authorization: basic(key, secrets[key]!), ...(init.headers as Record<string, string>) },
      });
    return { store, ask, first: gateways[0]!, second: gateways[1]!, sandbox };
  }

  it("answers on the second gateway from the first's purchases, with the keys issued once for both", async () => {
    const { ask, first, second, sandbox: upstream } = await twoGateways();
    const body = JSON.stringify(homes(1, 10));
    const bought = await ask(first, 'alice', '/v2/property/value', { method: 'POST', headers: json, body });
    expect(bought.status).toBe(200);
    const kept = await ask(second, 'bob', '/v2/property/value', { method: 'POST', headers: json, body });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toEqual(await bought.json());
    expect(upstream.usage().components).toBe(10);
  });

  it('buys an item both gateways need at once once, and shares one pacer: no 429 from the service', async () => {
    // 30 components a second between them: each gateway alone would send its 60 at once.
    const { ask, first, second, sandbox: upstream } = await twoGateways([{ limit: 30, periodSeconds: 1 }]);
    const [a, b] = await Promise.all([
      ask(first, 'alice', '/v2/property/rental_value', { method: 'POST', headers: json, body: JSON.stringify(homes(1, 60)) }),
      ask(second, 'bob', '/v2/property/rental_value', { method: 'POST', headers: json, body: JSON.stringify(homes(31, 90)) }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(upstream.usage()).toMatchObject({ components: 90, chargedAgain: { sections: 0 } });
    expect(statuses.filter((status) => status === 429)).toEqual([]);
  });

  it("counts a key's spend on one gateway against its budget on the other", async () => {
    const { ask, first, second, store } = await twoGateways();
    // carol's 2 USD buy 8 property/value answers at 0.25.
    expect(
      (await ask(first, 'carol', '/v2/property/value', { method: 'POST', headers: json, body: JSON.stringify(homes(1, 8)) })).status,
    ).toBe(200);
    // The second gateway reads every gateway's spend from the store within its refresh.
    await vi.waitFor(() => expect(second.status().spend.keys.find((key) => key.key === 'carol')?.month).toBe(2));
    const refused = await ask(second, 'carol', '/v2/property/value', { method: 'POST', headers: json, body: JSON.stringify(homes(9, 9)) });
    expect(refused.status).toBe(402);
    const usage = await runMain(['usage', '--by', 'key', '--all-accounts', '--store', store]);
    expect(usage.stdout).toMatch(/^carol\s+\d+\s+8\s+8\s+2\.00/m);
    expect(usage.stdout + usage.stderr).not.toContain(postgresPassword());
  });

  it(
    "bills a key's 1 USD budget at most 1 USD, 30 requests at once over both gateways",
    async () => {
      const race = await raceBudget(freshSchema(database.url), false, gateways);
      sandbox = race.sandbox;
      expectHeld(race);
    },
    RACE_TIMEOUT_MS,
  );

  it(
    "bills the account's --max-cost-month of 1 USD at most 1 USD, 30 requests at once over both gateways",
    async () => {
      const race = await raceBudget(freshSchema(database.url), true, gateways);
      sandbox = race.sandbox;
      expectHeld({ ...race, keySpent: 1 });
    },
    RACE_TIMEOUT_MS,
  );
});

/** A gateway that runs for weeks meets its database restarting: its operator reads why requests paused, and when they went on. */
describe('a gateway whose PostgreSQL store stops answering for a while', () => {
  it('says so in its log as the store goes and comes back, and answers the request that waited', async () => {
    const upstream = await startSandbox({ rateLimits: [{ limit: 1_000_000, periodSeconds: 60 }], credit: 1_000_000, strict: true });
    const store = freshSchema(database.url);
    const secrets = await issueKeys(store, [{ name: 'alice' }]);
    const problems: string[] = [];
    const gateway = await gatewayFor(upstream, store, { onProblem: (message) => problems.push(message) });
    const outage = await cutWhenRecorded(database, new URL(store).searchParams.get('schema')!);
    const ask = (from: number) =>
      fetch(`${gateway.url}/v2/property/value`, {
        method: 'POST',
        headers: { ...json, authorization: basic('alice', secrets.alice!) },
        body: JSON.stringify(homes(from, from + 4)),
      });
    try {
      for (const from of [1, 6, 11]) expect((await ask(from)).status).toBe(200);
      await outage.cut;
      const back = new Promise((resolve) => setTimeout(resolve, 2_000)).then(() => outage.restore());
      expect((await ask(16)).status).toBe(200);
      await back;
      expect(problems).toContainEqual(
        expect.stringMatching(/^the store stopped answering: .+; sending paused until it answers again, for 5 min at most$/),
      );
      expect(problems).toContainEqual(expect.stringMatching(/^the store answers again after \d+ s; sending goes on/));
      expect(problems.join('\n')).not.toContain(postgresPassword());
      expect(upstream.usage()).toMatchObject({ components: 20, chargedAgain: { sections: 0 } });
    } finally {
      await outage.restore();
      await outage.end();
      await gateway.close(0);
      await upstream.close();
    }
  });
});
