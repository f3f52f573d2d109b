import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { idealLastSend, parseWindows } from '../fixed-windows.mjs';
import { inputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { batchArgs, runBatch } from '../propdata-run.mjs';
import { startSandbox } from '../sandbox.mjs';
import { startTrafficRecorder } from '../traffic-recorder.mjs';

const MIN_EFFICIENCY = 0.95;
const MIN_JAIN = 0.95;

/**
 * Components for all the jobs of a case together: about 24 s of each setting's pace, whatever the
 * number of jobs, so that the twelve cases take a few minutes on a small machine.
 */
const SETTINGS = [
  { windows: '250/6', total: 1_000 },
  { windows: '50/1,250/10', total: 600 },
];
const JOBS = [2, 4, 8];

/** Jain's fairness index: 1 when every job had the same throughput, 1/n when one had it all. */
export function jain(values) {
  const sum = values.reduce((a, b) => a + b, 0);
  const squares = values.reduce((a, b) => a + b * b, 0);
  return squares > 0 ? (sum * sum) / (values.length * squares) : 1;
}

/** Each job's input: `items` rows from `rows` (from row `from` on), with a `meta` column naming the job (sent with every item, seen by the recorder). */
export function jobInputs(dir, [header, ...rows], items, jobs, from = 0) {
  return Array.from({ length: jobs }, (_, i) => {
    const path = join(dir, `in-${i}.csv`);
    const mine = rows.slice(from + i * items, from + (i + 1) * items).map((row) => `${row},job${i}`);
    writeFileSync(path, `${[`${header},meta`, ...mine].join('\n')}\n`);
    return path;
  });
}

/** The lines of a bench input file: its header, then its rows. */
export const linesOf = (path) => readFileSync(path, 'utf8').trimEnd().split('\n');

/** One store file shared by every job of a case (`--store FILE`): jobs on one machine. */
export const sharedFile = (i, dir) => ({ args: ['--store', join(dir, 'shared.db')], env: {} });

/** The jobs, each its own process, all at once; `store(i, dir)`: job i's store arguments and environment (none: --no-store). */
export function runJobs(inputs, dir, env, store) {
  return Promise.all(
    inputs.map((input, i) => {
      const own = store?.(i, dir) ?? { args: [], env: {} };
      const args = batchArgs(input, join(dir, `out-${i}.csv`), join(dir, `report-${i}.json`), own.args);
      return runBatch(args, { env: { ...env, ...own.env } });
    }),
  );
}

/**
 * What the jobs' exchanges with the service show: components answered, efficiency (a perfect
 * client's last send over the jobs' last send, for the requests they sent, from the first request
 * on: fixed-windows.mjs), 429s the windows caused, Jain's index of the jobs' throughputs (each from
 * the common start to its own last answer: a job served last scores low), and the wall time.
 */
export function scoreJobs(exchanges, windows, jobs) {
  const all = [...exchanges].sort((a, b) => a.at - b.at);
  const answered = all.filter((exchange) => exchange.status === 200);
  const first = all[0]?.at ?? 0;
  const lastSend = Math.max(...answered.map((exchange) => exchange.at));
  const ideal = idealLastSend(
    first,
    answered.map((exchange) => exchange.items),
    windows,
  );
  const throughputs = Array.from({ length: jobs }, (_, i) => {
    const mine = answered.filter((exchange) => exchange.meta === `job${i}`);
    const components = mine.reduce((sum, exchange) => sum + exchange.items, 0);
    const end = Math.max(...mine.map((exchange) => exchange.answeredAt));
    return components / Math.max(0.001, (end - first) / 1000);
  });
  return {
    first,
    components: answered.reduce((sum, exchange) => sum + exchange.items, 0),
    efficiency: lastSend > first ? (ideal - first) / (lastSend - first) : 1,
    limit429: all.filter((exchange) => exchange.status === 429 && !exchange.injected).length,
    fairness: jain(throughputs),
    wallS: (Math.max(...answered.map((e) => e.answeredAt)) - first) / 1000,
  };
}

/**
 * N equal jobs on one account, started together. `store(i, dir)`: job i's store arguments and
 * environment (sharedFile, or a database and a machine of its own); none: `--no-store`.
 */
export async function runCase(setting, jobs, store) {
  const items = Math.ceil(setting.total / jobs);
  const dir = join(WORK, `parallel-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const inputs = jobInputs(dir, linesOf(await inputFile(items * jobs)), items, jobs);
  const sandbox = await startSandbox(['--rate-limit', setting.windows]);
  // One recorder, so that every job is one account (the account is the base URL and the key).
  const recorder = await startTrafficRecorder(sandbox.url);
  try {
    await runJobs(inputs, dir, { ...sandbox.env, PROPDATA_BASE_URL: recorder.url }, store);
  } finally {
    await recorder.close();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { jobs, items, ...scoreJobs(recorder.exchanges, parseWindows(setting.windows), jobs) };
}

/**
 * Several jobs on one account: 2, 4 and 8 equal jobs started together against the sandbox's fixed
 * windows, each job its own process, with one shared store (`--store FILE`, the same for all) and
 * without any (`--no-store`: as on separate machines). Efficiency is a perfect client's last send
 * over the jobs' last send, for the requests they sent, from the first request on (fixed-windows.mjs);
 * fairness is Jain's index of the jobs' throughputs, each from the common start to its last answer.
 */
export async function parallel() {
  const rows = [];
  const checks = [];
  for (const setting of SETTINGS) {
    for (const shared of [true, false]) {
      for (const jobs of JOBS) {
        const label = `${jobs} jobs, ${setting.windows}, ${shared ? 'shared store' : 'no store'}`;
        console.log(`parallel: ${label}...`);
        const result = await runCase(setting, jobs, shared ? sharedFile : undefined);
        rows.push([
          String(jobs),
          `\`${setting.windows}\``,
          shared ? 'shared' : 'none',
          `${result.components} of ${result.items * jobs}`,
          result.efficiency.toFixed(3),
          String(result.limit429),
          result.fairness.toFixed(3),
          `${result.wallS.toFixed(1)} s`,
        ]);
        checks.push({
          name: `${label}: combined vs ideal`,
          value: result.efficiency.toFixed(3),
          target: `≥ ${MIN_EFFICIENCY}`,
          pass: result.efficiency >= MIN_EFFICIENCY,
        });
        checks.push({
          name: `${label}: 429s (windows)`,
          value: String(result.limit429),
          // With the store none; without one, at most one per job per 10 windows (and the probe's).
          target: shared ? '0' : `≤ ${jobs}`,
          pass: shared ? result.limit429 === 0 : result.limit429 <= jobs,
        });
        checks.push({
          name: `${label}: Jain's index`,
          value: result.fairness.toFixed(3),
          target: `≥ ${MIN_JAIN}`,
          pass: result.fairness >= MIN_JAIN,
        });
      }
    }
  }
  return {
    table: {
      header: ['jobs', 'windows', 'store', 'components answered', 'combined vs ideal', '429 (windows)', "Jain's index", 'wall'],
      rows,
    },
    checks,
  };
}
