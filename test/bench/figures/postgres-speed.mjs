import { join } from 'node:path';
import { createDatabase, startEmbeddedPostgres } from '../embedded-postgres.mjs';
import { WORK } from '../paths.mjs';
import { INPUTS, storeFigures, storeRuns } from './store-speed.mjs';

/** Issue 35's goals for a database: a first run at half --no-store's pace at least, a rerun from it at 1.5 times. */
const TARGET = { first: 0.5, rerun: 1.5 };

/**
 * The store's cost and gain a whole run (storeSpeed) with the store in PostgreSQL: the embedded
 * server on this machine (embedded-postgres, durability off as in the tests), a new database each
 * round, 100,000 distinct rows. The server's CPU is on the same two cores as propdata and the sandbox.
 */
export async function postgresSpeed() {
  const server = await startEmbeddedPostgres();
  try {
    const input = INPUTS.find((candidate) => candidate.name === 'distinct');
    console.log('postgresSpeed: distinct rows...');
    const runs = await storeRuns({
      input: await input.file(),
      store: (round) => createDatabase(server.url, `bench_speed_${process.pid}_${round}`),
      // A machine of its own: a database's journal (outages) lives there.
      env: { PROPDATA_HOME: join(WORK, `postgres-speed-home-${process.pid}`) },
    });
    return storeFigures(`100,000 ${input.label}, PostgreSQL`, runs, TARGET);
  } finally {
    await server.stop();
  }
}
