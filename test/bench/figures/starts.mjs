import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from '../child.mjs';
import { createDatabase, startEmbeddedPostgres } from '../embedded-postgres.mjs';
import { parseWindows } from '../fixed-windows.mjs';
import { distinctInputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { startSandbox } from '../sandbox.mjs';
import { startTrafficRecorder } from '../traffic-recorder.mjs';
import { jobInputs, linesOf, runJobs, scoreJobs } from './parallel.mjs';

const WINDOWS = '250/3';
const JOBS = 4;
/** Components of a start, the four jobs together: four windows of 250/3. */
const TOTAL = 1_000;
/** Starts a setting is measured at (issue 35: 20); PROPDATA_BENCH_STARTS for a shorter look. */
const STARTS = Number(process.env.PROPDATA_BENCH_STARTS ?? 20);
/** Issue 35: every start at 0.95 of the ideal; with a CPU-bound process per core beside the jobs, the median at 0.95 and none below 0.9. */
const GOAL = { quiet: { median: 0.95, worst: 0.95 }, busy: { median: 0.95, worst: 0.9 } };
const MIN_JAIN = 0.95;

/** A process per core that only burns CPU, as a busy machine has: stopped by the returned function. */
function burnEveryCore() {
  const burners = cpus().map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => {
    for (const burner of burners) burner.kill();
  };
}

/**
 * `starts` starts of four jobs at 250/3 against one sandbox (a service that is up and warm), each
 * job its own process on the store `store(start)` gives (its arguments and environment per job),
 * each start a clean window after the last and at a random phase in it, on rows no start used
 * before. With `learnt`, one small run on the store learns the windows first, as any earlier run of
 * the account leaves them (for a week); without it every start is the first run the store sees.
 */
async function measureStarts({ store, learnt, busy, starts }) {
  const windows = parseWindows(WINDOWS);
  const periodMs = windows[0].periodSeconds * 1000;
  const dir = join(WORK, `starts-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const lines = linesOf(await distinctInputFile(TOTAL * (starts + 1)));
  const sandbox = await startSandbox(['--rate-limit', WINDOWS]);
  const recorder = await startTrafficRecorder(sandbox.url);
  const env = { ...sandbox.env, PROPDATA_BASE_URL: recorder.url };
  const stop = busy ? burnEveryCore() : () => undefined;
  const results = [];
  try {
    if (learnt) await runJobs(jobInputs(dir, lines, 10, 1, TOTAL * starts), dir, env, await store(-1));
    for (let start = 0; start < starts; start++) {
      await sleep(periodMs + Math.random() * periodMs);
      recorder.exchanges.length = 0;
      const items = TOTAL / JOBS;
      await runJobs(jobInputs(dir, lines, items, JOBS, start * TOTAL), dir, env, await store(start));
      const score = scoreJobs(recorder.exchanges, windows, JOBS);
      results.push({ ...score, phaseMs: score.first % periodMs });
      console.log(
        `starts: ${start + 1}/${starts}: ${score.efficiency.toFixed(3)} of the ideal, Jain ${score.fairness.toFixed(3)}, first send ${(score.first % periodMs) / 1000} s into its window`,
      );
    }
  } finally {
    stop();
    await recorder.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** One setting's row and checks (`goal`: undefined for a setting measured for reference). */
function report(label, results, goal) {
  const scores = results.map((result) => result.efficiency);
  const worst = results.reduce((a, b) => (b.efficiency < a.efficiency ? b : a));
  const row = [
    label,
    String(results.length),
    `${scores.filter((score) => score >= 0.95).length} of ${results.length}`,
    `${worst.efficiency.toFixed(3)} (first send ${(worst.phaseMs / 1000).toFixed(2)} s into its window)`,
    median(scores).toFixed(3),
    Math.min(...results.map((result) => result.fairness)).toFixed(3),
    String(Math.max(...results.map((result) => result.limit429))),
  ];
  if (!goal) return { row, checks: [] };
  const jain = Math.min(...results.map((result) => result.fairness));
  const refused = Math.max(...results.map((result) => result.limit429));
  return {
    row,
    checks: [
      {
        name: `${label}: worst start vs ideal`,
        value: worst.efficiency.toFixed(3),
        target: `≥ ${goal.worst}`,
        pass: worst.efficiency >= goal.worst,
      },
      {
        name: `${label}: median vs ideal`,
        value: median(scores).toFixed(3),
        target: `≥ ${goal.median}`,
        pass: median(scores) >= goal.median,
      },
      { name: `${label}: worst Jain's index`, value: jain.toFixed(3), target: `≥ ${MIN_JAIN}`, pass: jain >= MIN_JAIN },
      { name: `${label}: most 429s in a start`, value: String(refused), target: '0', pass: refused === 0 },
    ],
  };
}

/**
 * Issue 35, item 3: four jobs sharing a store at 250/3, measured at many starts (the parallel figure
 * draws one start a case), on a quiet machine and with a CPU-bound process per core beside them:
 * one machine's SQLite file and PostgreSQL from two machines, the store having met the service
 * before (it keeps the windows it was told for a week); and, for reference, every start a new
 * store's first run, whose first request alone goes out until its answer states the windows.
 */
export async function starts() {
  const rows = [];
  const checks = [];
  const settings = [
    { label: 'one SQLite file', kind: 'sqlite', learnt: true },
    { label: 'PostgreSQL, two machines', kind: 'postgres', learnt: true },
    { label: 'a new SQLite file each start (its first run)', kind: 'sqlite', learnt: false },
  ];
  const server = await startEmbeddedPostgres();
  try {
    for (const setting of settings) {
      for (const busy of [false, true]) {
        const label = `${setting.label}, ${busy ? 'a CPU-bound process per core' : 'quiet'}`;
        console.log(`starts: ${label}...`);
        const dir = join(WORK, `starts-store-${process.pid}`);
        mkdirSync(dir, { recursive: true });
        let database;
        const store = async (start) => {
          if (setting.kind === 'postgres') {
            database ??= await createDatabase(server.url, `bench_starts_${busy ? 'busy' : 'quiet'}_${process.pid}`);
            return (i) => ({ args: ['--store', database], env: { PROPDATA_HOME: join(dir, `host-${i % 2}`) } });
          }
          const file = join(dir, setting.learnt ? 'shared.db' : `first-${start}.db`);
          return () => ({ args: ['--store', file], env: {} });
        };
        try {
          const results = await measureStarts({ store, learnt: setting.learnt, busy, starts: STARTS });
          const { row, checks: own } = report(label, results, setting.learnt ? GOAL[busy ? 'busy' : 'quiet'] : undefined);
          rows.push(row);
          checks.push(...own);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await server.stop();
  }
  return {
    table: {
      header: ['store, machine', 'starts', 'at ≥ 0.95 of the ideal', 'worst', 'median', 'worst Jain', 'most 429s'],
      rows,
    },
    checks,
  };
}
