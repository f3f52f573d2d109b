import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { USAGE_REPORTER, WORK } from './paths.mjs';

/**
 * Runs `node ...args` to its end: wall time from spawn to exit (what a user waits, node's own
 * start included), exit code and output; with `measureUsage`, the child's own peak RSS in bytes
 * and CPU time in ms.
 */
export async function runNode(args, { env = {}, measureUsage = false, allowExit = [0] } = {}) {
  // A figure that builds no input file (libraryMemory alone) finds no work directory yet.
  if (measureUsage) mkdirSync(WORK, { recursive: true });
  const usageFile = join(WORK, `usage-${process.pid}-${Date.now()}`);
  const nodeArgs = measureUsage ? ['--import', USAGE_REPORTER, ...args] : args;
  const started = performance.now();
  const child = spawn(process.execPath, nodeArgs, {
    env: { ...process.env, ...env, ...(measureUsage ? { PROPDATA_BENCH_USAGE_FILE: usageFile } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let signal;
  child.stdout.on('data', (part) => (stdout += part));
  child.stderr.on('data', (part) => (stderr += part));
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode, exitSignal) => {
      signal = exitSignal;
      resolve(exitCode);
    });
  });
  const wallMs = performance.now() - started;
  if (!allowExit.includes(code)) {
    throw new Error(`node ${args.join(' ')} exited ${code ?? `by ${signal}`}:\n${stderr.slice(-2000)}`);
  }
  let usage = {};
  if (measureUsage) {
    usage = JSON.parse(readFileSync(usageFile, 'utf8'));
    rmSync(usageFile);
  }
  return { code, wallMs, stdout, stderr, ...usage };
}

/** The median of a few timings: one disturbed run does not move it. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
