import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, WORK } from '../paths.mjs';

/** Issue 15's goals: a job alone within 3% of a perfect client; four jobs on separate machines within 5%, Jain ≥ 0.95. */
const TARGET = { alone: 0.97, together: 0.95 };
const MIN_JAIN = 0.95;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Runs without a store, and jobs sharing one, at every start phase (40, spread over the longest
 * window), in virtual time against a strict fixed-window service (test/bench/sweep/start-phases.sweep.ts,
 * through vitest for the TypeScript sources and the fake clock): how many starts reach the goal, and the worst.
 */
export async function sweep() {
  mkdirSync(WORK, { recursive: true });
  const out = join(WORK, 'sweep.json');
  const vitest = spawnSync('npx', ['vitest', 'run', '--config', 'test/bench/sweep/vitest.config.ts'], {
    cwd: ROOT,
    env: { ...process.env, SWEEP_OUT: out },
    encoding: 'utf8',
  });
  if (vitest.status !== 0) throw new Error(`the sweep failed:\n${vitest.stdout}\n${vitest.stderr}`);
  const cases = JSON.parse(readFileSync(out, 'utf8'));
  const rows = [];
  const checks = [];
  for (const { windows, jobs, items, store, seconds, runs } of cases) {
    const target = jobs === 1 ? TARGET.alone : TARGET.together;
    const scores = runs.map((run) => run.vsIdeal);
    const reached = scores.filter((score) => score >= target).length;
    const label = `${jobs === 1 ? '1 job' : `${jobs} jobs`}${store ? ' (one store)' : ''}, ${windows}, ${items} items`;
    rows.push([
      store ? `${jobs}, one store` : String(jobs),
      `\`${windows}\``,
      `${items} (${Math.round(seconds)} s)`,
      `${reached} of ${runs.length}`,
      Math.min(...scores).toFixed(3),
      median(scores).toFixed(3),
      jobs === 1 ? '—' : Math.min(...runs.map((run) => run.jain)).toFixed(3),
      String(Math.max(...runs.map((run) => run.refused))),
    ]);
    checks.push({
      name: `${label}: starts at ≥ ${target} of ideal`,
      value: `${reached} of ${runs.length}`,
      target: 'all',
      pass: reached === runs.length,
    });
    if (jobs > 1) {
      const fair = runs.filter((run) => run.jain >= MIN_JAIN).length;
      checks.push({
        name: `${label}: starts with Jain ≥ ${MIN_JAIN}`,
        value: `${fair} of ${runs.length}`,
        target: 'all',
        pass: fair === runs.length,
      });
    }
  }
  return {
    table: {
      header: [
        'jobs',
        'windows',
        'items (at the allowed rate)',
        `starts at the goal`,
        'worst vs ideal',
        'median',
        'worst Jain',
        'most 429s in a run',
      ],
      rows,
    },
    checks,
  };
}
