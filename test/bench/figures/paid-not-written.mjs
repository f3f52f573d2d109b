import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runNode } from '../child.mjs';
import { inputFile } from '../input-file.mjs';
import { BIN, WORK } from '../paths.mjs';
import { startSandbox } from '../sandbox.mjs';

const ROWS = 1_000;
const WINDOWS = '250/6';
/** What can be in flight with the defaults: 4 requests of at most 100 items. */
const IN_FLIGHT = 400;
const SAMPLE_MS = 100;

/** Records in a CSV output: its lines but the header (the Baltimore rows hold no line breaks). */
function recordsIn(path) {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, 'utf8');
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines += 1;
  return Math.max(0, lines - 1);
}

async function usage(sandbox) {
  const response = await fetch(`${sandbox.url}/__sandbox/usage`, {
    headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}` },
  });
  return (await response.json()).components;
}

function start(args, env) {
  return spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: 'ignore' });
}

/**
 * At the service's pace (a 250-component window every 6 s), how far the written output trails
 * what the sandbox has charged, sampled every 100 ms through a whole run; then what a kill -9
 * in mid-run plus --resume costs beyond one answer per row. Both are bounded by what can be in
 * flight: a paid answer is written as soon as its turn comes.
 */
export async function paidNotWritten() {
  const input = await inputFile(ROWS);
  const output = join(WORK, 'paid-out.csv');
  const args = ['property', 'value', '--input', input, '--output', output, '--quiet', '--no-store'];
  const clean = () =>
    ['', '.propdata-run.json', '.lock'].forEach((suffix) => rmSync(`${output}${suffix}`, { force: true, recursive: true }));

  clean();
  let sandbox = await startSandbox(['--rate-limit', WINDOWS]);
  let worst = 0;
  let uninterrupted;
  try {
    const child = start(args, sandbox.env);
    const exited = once(child, 'exit');
    let running = true;
    void exited.then(() => (running = false));
    while (running) {
      const charged = await usage(sandbox);
      worst = Math.max(worst, charged - recordsIn(output));
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    }
    // Repeated rows are sent once: what an uninterrupted run is charged is the baseline.
    uninterrupted = await usage(sandbox);
  } finally {
    await sandbox.stop();
  }

  clean();
  sandbox = await startSandbox(['--rate-limit', WINDOWS]);
  let extra;
  try {
    const child = start(args, sandbox.env);
    while (recordsIn(output) < ROWS / 2) await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    child.kill('SIGKILL');
    await once(child, 'exit');
    await runNode([BIN, ...args, '--resume'], { env: sandbox.env, allowExit: [0, 3] });
    extra = (await usage(sandbox)) - uninterrupted;
  } finally {
    await sandbox.stop();
    clean();
  }

  return {
    measurements: [
      ['rows, windows', `${ROWS}, \`${WINDOWS}\``],
      ['most components charged but not written, sampled every 100 ms', String(worst)],
      ['components charged beyond an uninterrupted run after a kill -9 at half way and --resume', String(extra)],
    ],
    checks: [
      {
        name: 'charged but not written, at worst',
        value: String(worst),
        target: `≤ ${IN_FLIGHT} (what can be in flight)`,
        pass: worst <= IN_FLIGHT,
      },
      { name: 'extra charged by kill -9 + resume', value: String(extra), target: `≤ ${IN_FLIGHT}`, pass: extra <= IN_FLIGHT },
    ],
  };
}
