import { describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '../../src/library/index.js';
import { STORE_WAITS } from '../../src/policy/policy.js';
import { databasePerFile, freshSchema } from '../helpers/postgres.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const sandboxes = sandboxPerTest();
const database = databasePerFile();

const HOME = { address: '7 Main St', zipcode: '90274' };
const BOTH = ['property/value', 'property/rental_value'] as const;
const DAY = 86_400_000;

const stores: Record<string, () => string> = {
  SQLite: () => tempStorePath(),
  // PostgreSQL claims a one-item call's item as it looks it up (Store.claimItem): one transaction for both.
  PostgreSQL: () => freshSchema(database.url),
};

/** One-item calls on a store: what is kept is used, only what is not is bought, and never twice. */
describe.each(Object.keys(stores))('one-item calls on a %s store', (driver) => {
  const optionsFor = (store: string): ClientOptions => {
    const sandbox = sandboxes.current;
    return { baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, store, maxAge: DAY };
  };

  it('buys only the sections an item lacks, answers the rest from the store, and the whole item from it next time', async () => {
    await sandboxes.start();
    const client = createClient(optionsFor(stores[driver]!()));
    try {
      const value = await client.property.value(HOME);
      expect(sandboxes.current.usage().components).toBe(1);
      const both = await client.mget([...BOTH], HOME);
      expect(both['property/value']).toEqual(value['property/value']);
      expect(both['property/rental_value'].api_code).toBe(0);
      // The value came from the store: the rental was the one section bought.
      expect(sandboxes.current.usage().components).toBe(2);
      expect(await client.mget([...BOTH], HOME)).toEqual(both);
      expect(sandboxes.current.usage().components).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('without an age limit, shares what calls running at once buy, and nothing a call that ended bought (rule 1)', async () => {
    // Answers that take 100 ms: the calls made at once overlap however busy the machine (a claim
    // takes one round trip, and a call that ended before the other began would rightly buy again).
    await sandboxes.start({ latencyMs: [100, 100] });
    const store = stores[driver]!();
    const { maxAge: _none, ...options } = optionsFor(store);
    const clients = [createClient(options), createClient(options)];
    try {
      await clients[0]!.property.value(HOME);
      await clients[1]!.property.value(HOME);
      // Each call is a run of its own: the second began after the first ended, so it bought again.
      expect(sandboxes.current.usage().components).toBe(2);
      await Promise.all(clients.map((client) => client.property.value({ ...HOME, address: '8 Main St' })));
      expect(sandboxes.current.usage().components).toBe(3);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('buys an item once when calls on two clients (two machines) ask for it at once: one waits for the other’s answer', async () => {
    await sandboxes.start();
    const store = stores[driver]!();
    const clients = [createClient(optionsFor(store)), createClient(optionsFor(store))];
    try {
      const homes = Array.from({ length: 6 }, (_, i) => ({ address: `${i + 1} Birch Ave`, zipcode: '90274' }));
      const answers = await Promise.all(homes.flatMap((home) => clients.map((client) => client.mget([...BOTH], home))));
      expect(answers.map((chunk) => chunk['property/value'].api_code)).toEqual(answers.map(() => 0));
      expect(sandboxes.current.usage().components).toBe(12);
      expect(sandboxes.current.usage().chargedAgain.sections).toBe(0);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});

/**
 * A client lives for days; its store's connections may not (a database restarted, an administrator,
 * a proxy's idle limit). A connection kept between calls (postgres/database.ts) that the database
 * ended is dropped when it ends, so the next call opens another rather than failing on it.
 */
describe('one-item calls on a PostgreSQL store whose connections the database ended between calls', () => {
  it('go on: the next call succeeds at once on a new connection, and nothing is bought twice', async () => {
    await sandboxes.start();
    const sandbox = sandboxes.current;
    const client = createClient({
      baseUrl: sandbox.url,
      key: sandbox.key,
      secret: sandbox.secret,
      store: freshSchema(database.url),
      maxAge: DAY,
    });
    const name = new URL(database.url).pathname.slice(1);
    const propdataConnections = async () =>
      (
        await database.admin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'propdata'",
          [name],
        )
      ).rows.map((row) => row.pid);
    try {
      const before = await client.property.value(HOME);
      const ended = await propdataConnections();
      expect(ended.length).toBeGreaterThan(0);
      await database.admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [ended]);
      await expect.poll(propdataConnections).toEqual([]);
      // Not after waiting out an outage (STORE_WAITS): a kept connection that had ended was taken.
      const started = performance.now();
      expect(await client.property.value(HOME)).toEqual(before);
      expect(performance.now() - started).toBeLessThan(STORE_WAITS.outageFirstDelayMs);
      expect(await client.property.value({ ...HOME, address: '9 Main St' })).toMatchObject({ 'property/value': { api_code: 0 } });
      expect(sandbox.usage().components).toBe(2);
      expect(sandbox.usage().chargedAgain.sections).toBe(0);
    } finally {
      await client.close();
    }
  });
});
