import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import type { Store } from '../../src/store/store-api.js';
import { DEFAULT_THROTTLE_POLICY } from '../../src/policy/policy.js';
import type { ShareRequest } from '../../src/throttle/shared-pacer.js';
import { databasePerFile, freshSchema } from '../helpers/postgres.js';

/**
 * What only a database's driver has: a clock of its own, which every machine converts to. The
 * pacer's scenarios run on both drivers (test/store/pacing/).
 */
const database = databasePerFile();
const stores: Store[] = [];

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const ACCOUNT = 'https://api.example.com key:0123456789abcdef';

describe("the database's clock, an hour away from the run's", () => {
  const HOUR = 3_600_000;

  it("stamps what it keeps on the database's clock, and gives the run its times in the run's", async () => {
    const runNow = () => Date.now() + HOUR;
    const store = await openPostgresStore(freshSchema(database.url), { now: runNow });
    stores.push(store);
    const item = { item: 'property|address=1 harbor rd|zipcode=21201', sections: [{ endpoint: 'v2/property/value', params: '' }] };
    // The service states its resets in whole seconds.
    const onSecond = (time: number) => Math.ceil(time / 1000) * 1000;
    const resetAt = onSecond(runNow() + 5_000);
    await store.record({
      request: {
        at: runNow(),
        run: 'run',
        account: ACCOUNT,
        endpoint: 'property/value',
        items: 1,
        components: 1,
        status: 200,
        billed: 1,
        cost: 0.25,
      },
      windows: [{ periodSeconds: 6, limit: 250, remaining: 200, resetAt }],
      answers: [
        { item: item.item, frame: [['address_info', {}], null], sections: [{ ref: item.sections[0]!, body: { api_code: 0, result: {} } }] },
      ],
    });
    const [found] = await store.find(ACCOUNT, [item], { maxAgeMs: 60_000 });
    expect(Math.abs(found!.sections[0]!.at - Date.now())).toBeLessThan(5_000);
    const [remembered] = (await store.loadWindows(ACCOUNT))!;
    expect(Math.abs(remembered!.resetAt - resetAt)).toBeLessThan(50);

    // The pacer: the window's reset as the run knows it, and when to ask again in the run's time.
    const window = { periodMs: 6_000, limit: 10, resetAt: onSecond(runNow() + 3_000) };
    const ask: ShareRequest = {
      wanted: 10,
      demand: 10,
      unit: 10,
      windows: [window],
      policy: { ...DEFAULT_THROTTLE_POLICY, startGraceMs: 0 },
    };
    expect(await store.pacer(ACCOUNT, 'first').reserve(ask)).toMatchObject({ components: 10 });
    const refused = await store.pacer(ACCOUNT, 'second').reserve(ask);
    expect(refused.components).toBe(0);
    const retryAt = 'retryAt' in refused ? refused.retryAt : 0;
    expect(retryAt).toBeGreaterThan(runNow());
    expect(retryAt).toBeLessThan(window.resetAt + 1_000);
  });
});

describe('one account paced from two machines taking turns', () => {
  it('loses no reservation when each writes on the state it last wrote (the other wrote since): the window is never oversubscribed', async () => {
    const url = freshSchema(database.url);
    const [first, second] = [await openPostgresStore(url), await openPostgresStore(url)];
    stores.push(first, second);
    const resetAt = Math.ceil((Date.now() + 30_000) / 1000) * 1000;
    const ask: ShareRequest = {
      wanted: 10,
      demand: 10,
      unit: 10,
      windows: [{ periodMs: 60_000, limit: 40, resetAt }],
      policy: { ...DEFAULT_THROTTLE_POLICY, startGraceMs: 0, marginFraction: 0, minMarginMs: 0, assumedClients: 1 },
    };
    const [a, b] = [first.pacer(ACCOUNT, 'a'), second.pacer(ACCOUNT, 'b')];
    // a, b, a, b: each one's second reservation is made on a state the other wrote after it.
    const granted = [];
    for (const pacer of [a, b, a, b, a, b]) granted.push((await pacer.reserve(ask)).components);
    expect(granted.reduce((sum, components) => sum + components, 0)).toBe(40);
    expect(granted.slice(4)).toEqual([0, 0]);
  });
});
