import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, startEmbeddedPostgres } from '../embedded-postgres.mjs';
import { inputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { batchArgs, runBatch } from '../propdata-run.mjs';
import { startSandbox } from '../sandbox.mjs';
import { runCase } from './parallel.mjs';

const MIN_EFFICIENCY = 0.97;
const MIN_JAIN = 0.95;
/** As the parallel figure: about 24 s of each setting's pace for the four jobs together. */
const SETTINGS = [
  { windows: '250/6', total: 1_000 },
  { windows: '50/1,250/10', total: 600 },
];
const JOBS = 4;
const HOSTS = 2;

/** The reservation round trip: 8 jobs, each reserving and reporting an answer every 100 ms, as a job at its pace does at most. */
const ROUND_TRIP_JOBS = 8;
const ROUND_TRIP_MS = 10_000;
const ROUND_TRIP_PAUSE_MS = 100;

/** The week: 7 nights over 3 hosts, 300 rows a night of which a fifth are new each night; night 4 runs on two hosts at once. */
const NIGHTS = 7;
const WEEK_HOSTS = 3;
const NIGHT_ROWS = 300;
const NEW_A_NIGHT = 60;
const TWICE_ON = 4;

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/** A machine of its own: its home (store file, config) apart from every other's; only the database is shared. */
function machineEnv(dir, host) {
  const home = join(dir, `host-${host}`);
  return { PROPDATA_HOME: home, PROPDATA_CONFIG_DIR: join(home, 'config') };
}

/** 4 jobs from 2 machines on one PostgreSQL store, as the parallel figure runs jobs on one machine. */
async function machines(server, checks, rows) {
  for (const setting of SETTINGS) {
    const store = await createDatabase(server.url, `bench_machines_${setting.windows.replace(/\W/g, '_')}_${process.pid}`);
    const label = `${JOBS} jobs from ${HOSTS} hosts, ${setting.windows}, PostgreSQL`;
    console.log(`postgres: ${label}...`);
    const result = await runCase(setting, JOBS, (i, dir) => ({ args: ['--store', store], env: machineEnv(dir, i % HOSTS) }));
    rows.push([
      label,
      `${result.components} of ${result.items * JOBS}`,
      result.efficiency.toFixed(3),
      String(result.limit429),
      result.fairness.toFixed(3),
      `${result.wallS.toFixed(1)} s`,
    ]);
    checks.push(
      {
        name: `${label}: combined vs ideal`,
        value: result.efficiency.toFixed(3),
        target: `≥ ${MIN_EFFICIENCY}`,
        pass: result.efficiency >= MIN_EFFICIENCY,
      },
      { name: `${label}: 429s (windows)`, value: String(result.limit429), target: '0', pass: result.limit429 === 0 },
      { name: `${label}: Jain's index`, value: result.fairness.toFixed(3), target: `≥ ${MIN_JAIN}`, pass: result.fairness >= MIN_JAIN },
    );
  }
}

/**
 * What one reservation costs in the database: 8 jobs (each its own connections, in this process),
 * each reserving and then reporting an answer every 100 ms for 10 s, in a window nothing fills.
 * Measured beside the same on one SQLite file.
 */
async function roundTrip(server, measurements) {
  const { openStore } = await import('../../../dist/store/index.js');
  const { DEFAULT_THROTTLE_POLICY } = await import('../../../dist/policy/policy.js');
  const database = await createDatabase(server.url, `bench_round_trip_${process.pid}`);
  const file = join(WORK, `bench-round-trip-${process.pid}.db`);
  for (const [name, location] of [
    ['PostgreSQL', database],
    ['SQLite', file],
  ]) {
    const stores = await Promise.all(Array.from({ length: ROUND_TRIP_JOBS }, () => openStore(location)));
    const reserve = [];
    const report = [];
    const until = Date.now() + ROUND_TRIP_MS;
    const window = () => ({ periodMs: 6_000, limit: 1_000_000, resetAt: Math.ceil(Date.now() / 6_000) * 6_000 });
    await Promise.all(
      stores.map(async (store, i) => {
        const pacer = store.pacer('bench key:0000000000000000', `job-${i}`);
        await pacer.join();
        while (Date.now() < until) {
          let started = performance.now();
          const grant = await pacer.reserve({ wanted: 100, demand: 1_000, unit: 1, windows: [window()], policy: DEFAULT_THROTTLE_POLICY });
          reserve.push(performance.now() - started);
          const { resetAt } = window();
          started = performance.now();
          await pacer.report(grant.id, [{ periodSeconds: 6, limit: 1_000_000, remaining: 999_000, resetAt }]);
          report.push(performance.now() - started);
          await sleep(ROUND_TRIP_PAUSE_MS);
        }
        await pacer.leave();
      }),
    );
    await Promise.all(stores.map((store) => store.close()));
    const ms = (values) => `median ${percentile(values, 0.5).toFixed(2)} ms, p95 ${percentile(values, 0.95).toFixed(2)} ms`;
    measurements.push(
      [
        `${name}: a reservation, ${ROUND_TRIP_JOBS} jobs each asking every ${ROUND_TRIP_PAUSE_MS} ms (${reserve.length} in ${ROUND_TRIP_MS / 1000} s)`,
        ms(reserve),
      ],
      [`${name}: an answer's report, the same jobs`, ms(report)],
    );
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/** What the sandbox has charged (components, and sections charged for an item it had charged before). */
async function sandboxUsage(sandbox) {
  const response = await fetch(`${sandbox.url}/__sandbox/usage`, {
    headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}` },
  });
  return response.json();
}

/**
 * A week of nightly runs spread over 3 hosts, one PostgreSQL store: each night's file is mostly
 * the night before's (answers younger than 30 days come from the store), and one night two hosts
 * run the same job at once. Each answer must be billed once.
 */
async function week(server, measurements, checks) {
  const store = await createDatabase(server.url, `bench_week_${process.pid}`);
  const dir = join(WORK, `postgres-week-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const [header, ...data] = readFileSync(await inputFile(NIGHT_ROWS + NIGHTS * NEW_A_NIGHT), 'utf8')
    .trimEnd()
    .split('\n');
  const sandbox = await startSandbox(['--rate-limit', 'off']);
  const sent = new Set();
  try {
    for (let night = 0; night < NIGHTS; night++) {
      const rows = data.slice(night * NEW_A_NIGHT, night * NEW_A_NIGHT + NIGHT_ROWS);
      for (const row of rows) sent.add(row);
      const input = join(dir, `night-${night}.csv`);
      writeFileSync(input, `${[header, ...rows].join('\n')}\n`);
      const hosts = night === TWICE_ON ? [night % WEEK_HOSTS, (night + 1) % WEEK_HOSTS] : [night % WEEK_HOSTS];
      await Promise.all(
        hosts.map((host) =>
          runBatch(
            batchArgs(input, join(dir, `out-${night}-${host}.csv`), join(dir, `report-${night}-${host}.json`), [
              '--store',
              store,
              '--max-age',
              '30d',
            ]),
            {
              env: { ...sandbox.env, ...machineEnv(dir, host) },
            },
          ),
        ),
      );
    }
    const usage = await sandboxUsage(sandbox);
    measurements.push(
      [
        `a week: ${NIGHTS} nights over ${WEEK_HOSTS} hosts, ${NIGHT_ROWS} rows a night (${NEW_A_NIGHT} new), night ${TWICE_ON + 1} on two hosts at once`,
        `${sent.size} distinct rows`,
      ],
      ['a week: components billed', String(usage.components)],
      ['a week: sections billed again', String(usage.chargedAgain.sections)],
    );
    checks.push({
      name: 'a week over 3 hosts: sections billed again',
      value: String(usage.chargedAgain.sections),
      target: '0',
      pass: usage.chargedAgain.sections === 0,
    });
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One account, many machines (issue 29): jobs on separate hosts (each its own PROPDATA_HOME)
 * sharing one PostgreSQL store, a real server from the embedded-postgres dev dependency on this
 * machine. The pacer across machines (combined vs ideal, 429s, Jain's index, as in the parallel
 * figure), the cost of a reservation's round trip, and a week of nightly runs billed once.
 */
export async function postgres() {
  const server = await startEmbeddedPostgres();
  const rows = [];
  const measurements = [];
  const checks = [];
  try {
    await machines(server, checks, rows);
    await roundTrip(server, measurements);
    await week(server, measurements, checks);
  } finally {
    await server.stop();
  }
  return {
    measurements,
    table: { header: ['case', 'components answered', 'combined vs ideal', '429 (windows)', "Jain's index", 'wall'], rows },
    checks,
  };
}
