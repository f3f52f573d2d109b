import { join } from 'node:path';
import { createDatabase, startEmbeddedPostgres } from '../embedded-postgres.mjs';
import { WORK } from '../paths.mjs';
import { INPUTS, storeFigures, storeRuns } from './store-speed.mjs';

/**
 * The goals for a database, by server: against the JSON-only server issue 47's (a first run at
 * 0.45 of --no-store's pace at least, a rerun from it at 1.0 times), against the sandbox issue 35's
 * (0.5, 1.5).
 */
export const TARGETS = { jsonServer: { first: 0.45, rerun: 1.0 }, sandbox: { first: 0.5, rerun: 1.5 } };

/**
 * The store's cost and gain a whole run (storeSpeed) with the store in PostgreSQL: the embedded
 * server on this machine (embedded-postgres, durability off as in the tests), a new database for
 * each first run, 100,000 distinct rows, against the JSON-only server and the sandbox. The
 * database's CPU is on the same two cores as propdata and the server it asks.
 */
export async function postgresSpeed() {
  const server = await startEmbeddedPostgres();
  try {
    const input = INPUTS.find((candidate) => candidate.name === 'distinct');
    console.log('postgresSpeed: distinct rows...');
    const runs = await storeRuns({
      input: await input.file(),
      store: (name) => createDatabase(server.url, `bench_speed_${process.pid}_${name}`),
      // A machine of its own: a database's journal (outages) lives there.
      env: { PROPDATA_HOME: join(WORK, `postgres-speed-home-${process.pid}`) },
    });
    return storeFigures(`100,000 ${input.label}, PostgreSQL`, runs, TARGETS);
  } finally {
    await server.stop();
  }
}
