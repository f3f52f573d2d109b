import { describe, expect, it } from 'vitest';
import type { SendableItem } from '../../src/batching/batch.js';
import { openSessionRuns } from '../../src/engine/run-store.js';
import { targetForList } from '../../src/model/query-target.js';
import type { Exchange } from '../../src/pipeline/send-batch.js';
import { openStore, type Store } from '../../src/store/index.js';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { databasePerFile, freshSchema } from '../helpers/postgres.js';
import { propertyChunk } from '../store/helpers/chunks.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

/**
 * A job's run leaves the store's runs without keeping its caller waiting (PROTOCOL.md, rule 1): in
 * the statement that enters the next run of the process, or on its own a moment later. Whichever
 * session of the process begins next, it never counts a run that closed before it began.
 */
const database = databasePerFile();
const VALUE = targetForList('property/value');
const ACCOUNT = 'sandbox (built in)';
const job = { target: VALUE, maxAgeMs: undefined, prices: { 'property/value': 0.25 } };
const home: SendableItem = { row: 1, columns: { address: '1 Main St' }, item: { address: '1 Main St', zipcode: '21136' } };
const answer: Exchange = {
  target: VALUE,
  sent: [home],
  answers: [propertyChunk('1 Main St', ['property/value'])],
  status: 200,
  headers: {},
  windows: [],
  items: 1,
  components: 1,
  chunks: [propertyChunk('1 Main St', ['property/value'])],
};

const drivers: Record<string, (clock: FakeClock) => () => Promise<Store>> = {
  SQLite: (clock) => {
    const path = tempStorePath();
    return () => openStore(path, { now: () => clock.now() });
  },
  PostgreSQL: (clock) => {
    const url = freshSchema(database.url);
    return () => openPostgresStore(url, { now: () => clock.now(), databaseNow: () => clock.now() });
  },
};

describe.each(Object.keys(drivers))('a run that closed, on %s', (driver) => {
  it('is counted by no run another session of the process begins after it: what it bought, a run begun a second later buys again', async () => {
    const clock = new FakeClock();
    const open = drivers[driver]!(clock);
    const first = openSessionRuns({ store: await open(), account: ACCOUNT, clock, runLabel: 'first' });
    const other = openSessionRuns({ store: await open(), account: ACCOUNT, clock, runLabel: 'second' });
    try {
      const bought = await first.openRun(job);
      bought.kept.record(answer);
      await bought.kept.flush();
      // A run begun while it is open counts what it bought.
      const beside = await other.openRun(job);
      expect((await beside.kept.resolve([home]))[0]!.kind).toBe('kept');
      await beside.close(0, 0);
      await bought.close(0, 0);
      await clock.sleep(1_000);
      const after = await other.openRun(job);
      expect((await after.kept.resolve([home]))[0]!.kind).toBe('buy');
      await after.close(0, 0);
    } finally {
      await Promise.all([first.close(), other.close()]);
    }
  });

  it('leaves before its session has closed, without another run entering', async () => {
    const clock = new FakeClock();
    const open = drivers[driver]!(clock);
    const session = openSessionRuns({ store: await open(), account: ACCOUNT, clock, runLabel: 'first' });
    const run = await session.openRun(job);
    await run.close(0, 0);
    await session.close();
    await clock.sleep(1_000);
    const probe = await open();
    try {
      // Nothing else runs: the earliest start is the probe's own.
      expect(await probe.enterRun(ACCOUNT, 'probe', 60_000)).toBe(clock.now());
    } finally {
      await probe.close();
    }
  });
});
