import { describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '../../src/library/index.js';
import { databasePerFile, freshSchema, postgresPassword } from '../helpers/postgres.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();
const database = databasePerFile();

const homes = (count: number) => Array.from({ length: count }, (_, i) => ({ address: `${i + 1} Elm St`, zipcode: '90274' }));

/**
 * Teams: clients on several machines share one account's answers through a PostgreSQL store.
 * Two clients stand for two machines: each opens the store on its own connections.
 */
describe('clients on several machines, one PostgreSQL store', () => {
  it('a batch on one machine answers the same items on another from the store, bought once; the password appears nowhere', async () => {
    await sandboxes.start();
    const sandbox = sandboxes.current;
    const store = freshSchema(database.url);
    const lines: string[] = [];
    const options: ClientOptions = {
      baseUrl: sandbox.url,
      key: sandbox.key,
      secret: sandbox.secret,
      store,
      maxAge: 86_400_000,
      logger: { debug: (line) => lines.push(line), info: (line) => lines.push(line), warn: (line) => lines.push(line) },
    };
    const [first, second] = [createClient(options), createClient(options)];
    try {
      let bought = 0;
      for await (const record of first.property.value.batch(homes(40))) bought += record.cost.components;
      const elsewhere = [];
      for await (const record of second.property.value.batch(homes(50))) elsewhere.push(record);
      expect(bought).toBe(40);
      expect(elsewhere.filter((record) => record.fromStore).map((record) => record.row)).toEqual(homes(40).map((_, i) => i + 1));
      expect(elsewhere.reduce((sum, record) => sum + record.cost.components, 0)).toBe(10);
      expect(sandbox.usage().components).toBe(50);
      expect(sandbox.usage().chargedAgain.sections).toBe(0);
      expect(lines.join('\n')).not.toContain(postgresPassword());
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("two batches of the same items at once buy each item once: one waits for the other's answer", async () => {
    await sandboxes.start();
    const sandbox = sandboxes.current;
    // With an age limit, so that what one bought before the other began counts too (the two start
    // together, but not to the millisecond on a busy machine); what is in flight is waited for.
    const options: ClientOptions = {
      baseUrl: sandbox.url,
      key: sandbox.key,
      secret: sandbox.secret,
      store: freshSchema(database.url),
      batchSize: 10,
      maxAge: 86_400_000,
    };
    const clients = [createClient(options), createClient(options)];
    try {
      const counts = await Promise.all(
        clients.map(async (client) => {
          let records = 0;
          for await (const record of client.property.value.batch(homes(60)))
            if (record.status === 'ok' || record.status === 'no_content') records += 1;
          return records;
        }),
      );
      expect(counts).toEqual([60, 60]);
      expect(sandbox.usage().components).toBe(60);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('answers 150 one-item calls made at once on one client, on the connections of one pool', async () => {
    await sandboxes.start();
    const sandbox = sandboxes.current;
    const store = freshSchema(database.url);
    const client = createClient({ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, store, storeConnections: 4 });
    try {
      const homesAsked = [...homes(100), ...homes(50)];
      const chunks = await Promise.all(homesAsked.map((home) => client.property.value(home)));
      expect(chunks.map((chunk) => chunk['property/value'].api_code).filter((code) => code === 0)).toHaveLength(150);
      // The 50 asked twice at once were bought once: the second call of each waited for the first's answer.
      expect(sandbox.usage().components).toBe(100);
      const { rows } = await database.admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'propdata'",
      );
      expect(rows[0]!.n).toBeLessThanOrEqual(4);
    } finally {
      await client.close();
    }
  });
});
