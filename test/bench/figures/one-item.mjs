import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, runNode } from '../child.mjs';
import { createDatabase, startEmbeddedPostgres } from '../embedded-postgres.mjs';
import { WORK } from '../paths.mjs';
import { startSandbox } from '../sandbox.mjs';

const CALLS = 300;
const ROUNDS = 3;
/** Issue 43's goals: a one-item call with a store costs at most this many times one without. */
const TARGET = { sqlite: 1.5, postgres: 2.5 };
const SCRIPT = fileURLToPath(new URL('../one-item-calls.mjs', import.meta.url));

/**
 * A library client's one-item calls one after another (one-item-calls.mjs), against the sandbox
 * with no rate limit: without a store, with a SQLite file and with PostgreSQL (the embedded server
 * on this machine, durability off as in the tests), three clients taking turns call by call in one
 * process, so that the machine's other work weighs on each alike. What a call costs on the
 * client's session, the store's lookup, claim and record included. Medians of each round's medians.
 */
export async function oneItem() {
  mkdirSync(WORK, { recursive: true });
  const sandbox = await startSandbox(['--rate-limit', 'off']);
  const server = await startEmbeddedPostgres();
  const runs = { none: [], sqlite: [], postgres: [] };
  const env = { PROPDATA_HOME: join(WORK, `one-item-home-${process.pid}`) };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const sqlite = join(WORK, `one-item-${process.pid}-${round}.db`);
      const postgres = await createDatabase(server.url, `bench_one_item_${process.pid}_${round}`);
      const { stdout } = await runNode([SCRIPT, sandbox.url, String(CALLS), 'none', sqlite, postgres], { env });
      const { medianMs } = JSON.parse(stdout);
      ['none', 'sqlite', 'postgres'].forEach((name, i) => runs[name].push(medianMs[i]));
    }
  } finally {
    await Promise.all([sandbox.stop(), server.stop()]);
  }
  const [none, sqlite, postgres] = [runs.none, runs.sqlite, runs.postgres].map(median);
  const ms = (value) => `${value.toFixed(2)} ms`;
  const check = (name, value, target) => ({ name, value: value.toFixed(2), target: `≤ ${target}`, pass: value <= target });
  return {
    measurements: [
      ['calls timed a round, each store, after 50 to warm up', String(CALLS)],
      [`one-item call, store: false (median of ${ROUNDS} rounds)`, ms(none)],
      ['one-item call, SQLite store', ms(sqlite)],
      ['one-item call, PostgreSQL store', ms(postgres)],
    ],
    checks: [
      check('SQLite ÷ store: false, a one-item call', sqlite / none, TARGET.sqlite),
      check('PostgreSQL ÷ store: false, a one-item call', postgres / none, TARGET.postgres),
    ],
  };
}
