import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_RSS_REPORTER, WORK } from './paths.mjs';

/**
 * Runs `node ...args` to its end: wall time from spawn to exit (what a user waits, node's own
 * start included), exit code and output; with `measureRss`, the child's own peak RSS in bytes.
 */
export async function runNode(args, { env = {}, measureRss = false, allowExit = [0] } = {}) {
  const rssFile = join(WORK, `rss-${process.pid}-${Date.now()}`);
  const nodeArgs = measureRss ? ['--import', MAX_RSS_REPORTER, ...args] : args;
  const started = performance.now();
  const child = spawn(process.execPath, nodeArgs, {
    env: { ...process.env, ...env, ...(measureRss ? { PROPDATA_BENCH_RSS_FILE: rssFile } : {}) },
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
  let maxRss;
  if (measureRss) {
    maxRss = Number(readFileSync(rssFile, 'utf8'));
    rmSync(rssFile);
  }
  return { code, wallMs, stdout, stderr, maxRss };
}

/** The median of a few timings: one disturbed run does not move it. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
