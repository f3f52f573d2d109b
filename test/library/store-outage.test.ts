import { describe, expect, it } from 'vitest';
import { createClient, type RunEvent } from '../../src/library/index.js';
import { cutWhenRecorded, databasePerFile, freshSchema, postgresPassword } from '../helpers/postgres.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sandboxes = sandboxPerTest();
const database = databasePerFile();

const homes = (count: number) => Array.from({ length: count }, (_, i) => ({ address: `${i + 1} Harbor Rd`, zipcode: '21201' }));

/**
 * A library client that lives for days meets its database restarting: its batch pauses and goes
 * on, and its owner hears of it (the client's onEvent and logger), as the CLI's user reads it on
 * stderr, instead of a call that is merely slow for no reason anyone can see.
 */
describe('a library client whose PostgreSQL store stops answering for a while', () => {
  it('tells its onEvent and logger as the store goes and comes back; the batch ends whole, nothing bought twice', async () => {
    await sandboxes.start({ latencyMs: [20, 20] });
    const sandbox = sandboxes.current;
    const store = freshSchema(database.url);
    const events: RunEvent[] = [];
    const warnings: string[] = [];
    const client = createClient({
      ...{ baseUrl: sandbox.url, key: sandbox.key, secret: sandbox.secret, store, batchSize: 10, concurrency: 1 },
      storeWait: 60_000,
      onEvent: (event) => events.push(event),
      logger: { warn: (message) => warnings.push(message) },
    });
    const outage = await cutWhenRecorded(database, new URL(store).searchParams.get('schema')!);
    try {
      const back = outage.cut.then(() => new Promise((resolve) => setTimeout(resolve, 2_000))).then(() => outage.restore());
      const records = [];
      for await (const record of client.property.value.batch(homes(200))) records.push(record);
      await back;
      expect(records).toHaveLength(200);
      // The sandbox has no data for a few of these homes (no_content): none is an error.
      expect(records.filter((record) => record.status !== 'ok' && record.status !== 'no_content')).toEqual([]);
      expect(sandbox.usage()).toMatchObject({ components: 200, chargedAgain: { sections: 0 } });

      const told = events.filter((event) => event.type === 'store-lost' || event.type === 'store-back');
      expect(told.map((event) => event.type)).toEqual(['store-lost', 'store-back']);
      expect(told[0]).toMatchObject({ type: 'store-lost', reason: expect.any(String), waitMs: 60_000 });
      expect(told[1]).toMatchObject({ type: 'store-back', afterMs: expect.any(Number), journaled: expect.any(Number) });
      expect((told[1] as { afterMs: number }).afterMs).toBeGreaterThanOrEqual(1_500);
      expect(warnings).toEqual([
        expect.stringMatching(/^the store stopped answering: .+; sending paused until it answers again, for 1 min at most \(storeWait\)$/),
        expect.stringMatching(/^the store answers again after \d+ s; sending goes on/),
      ]);
      expect(JSON.stringify([events, warnings])).not.toContain(postgresPassword());
    } finally {
      await outage.restore();
      await outage.end();
      await client.close();
    }
  });
});
