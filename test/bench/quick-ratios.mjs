import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, runNode } from './child.mjs';
import { createDatabase, startEmbeddedPostgres } from './embedded-postgres.mjs';
import { distinctInputFile } from './input-file.mjs';
import { WORK } from './paths.mjs';
import { TARGETS as POSTGRES_TARGETS } from './figures/postgres-speed.mjs';
import { storeRuns, TARGETS } from './figures/store-speed.mjs';
import { startServerProcess } from './server-process.mjs';

// `node test/bench/quick-ratios.mjs [rows] [rounds] [pg]` (after `npm run build`): issue 47's
// ratios against the JSON-only server while working on them, on fewer rows and rounds than the
// bench (default 20,000 rows, 1 round), and nothing written to BENCHMARKS.md. The store's runs are
// the storeSpeed figure's own (storeRuns, distinct rows); `pg` adds postgresSpeed's. Beside them,
// --no-store ÷ the hand-written client, both against the JSON-only server, as the overhead figure
// measures it (there in rounds interleaved): a claim is the bench's, this is a developer's quick look.
const rows = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 1);
const withPostgres = process.argv[4] === 'pg';
const input = await distinctInputFile(rows);
const script = (name) => fileURLToPath(new URL(name, import.meta.url));
const perSecond = (wallMs) => rows / (wallMs / 1000);

const file = join(WORK, `quick-ratios-${process.pid}.db`);
const fresh = () => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  return file;
};
const lines = [];
const say = (name, runs, target) => {
  const first = runs.first.rowsPerSecond / runs.none.rowsPerSecond;
  const rerun = runs.rerun.rowsPerSecond / runs.none.rowsPerSecond;
  lines.push(
    `${name}: first run ÷ --no-store ${first.toFixed(2)} (goal ≥ ${target.first}), rerun ${rerun.toFixed(2)} (goal ≥ ${target.rerun})`,
  );
};
let sqlite;
try {
  sqlite = (await storeRuns({ input, store: fresh, rounds, servers: ['jsonServer'] })).jsonServer;
  say('SQLite', sqlite, TARGETS.jsonServer.distinct);
} finally {
  fresh();
}
if (withPostgres) {
  const server = await startEmbeddedPostgres();
  try {
    const runs = await storeRuns({
      input,
      store: (name) => createDatabase(server.url, `quick_ratios_${process.pid}_${name}`),
      rounds,
      servers: ['jsonServer'],
      env: { PROPDATA_HOME: join(WORK, `quick-ratios-home-${process.pid}`) },
    });
    say('PostgreSQL', runs.jsonServer, POSTGRES_TARGETS.jsonServer);
  } finally {
    await server.stop();
  }
}
const jsonServer = await startServerProcess([script('reference/json-server.mjs')]);
try {
  const hand = [];
  for (let round = 0; round < rounds; round++) {
    hand.push(
      perSecond(
        (await runNode([script('reference/hand-written-client.mjs'), jsonServer.url, input, join(WORK, 'quick-ratios-hand.csv')])).wallMs,
      ),
    );
  }
  const ratio = sqlite.none.rowsPerSecond / median(hand);
  // propdata's start (about 100 ms more than the client's) weighs more on fewer rows than the bench's 100,000.
  lines.push(`--no-store ÷ the hand-written client ${ratio.toFixed(3)} (goal ≥ 0.8 on 100,000 rows, the overhead figure's)`);
} finally {
  await jsonServer.stop();
}
for (const line of lines) console.log(line);
