import { readFileSync, rmSync } from 'node:fs';
import { runNode } from './child.mjs';
import { BIN } from './paths.mjs';

/** What every batch run here is: `property value`, quiet, with its summary in a --report file. */
export function batchArgs(input, output, report, extra = []) {
  // A bench never touches the user's own store: a figure that uses one names its file.
  const store = extra.includes('--store') ? [] : ['--no-store'];
  return [BIN, 'property', 'value', '--input', input, '--output', output, '--quiet', '--report', report, ...store, ...extra];
}

/**
 * Runs a batch and returns the child's timing (and resource usage) with the run's own report. The output
 * is deleted afterwards: a million rows of it is half a gigabyte and nothing here reads it.
 */
export async function runBatch(args, { env, measureUsage = false } = {}) {
  const output = args[args.indexOf('--output') + 1];
  const report = args[args.indexOf('--report') + 1];
  try {
    const run = await runNode(args, { env, measureUsage, allowExit: [0, 3] });
    return { ...run, report: JSON.parse(readFileSync(report, 'utf8')) };
  } finally {
    rmSync(output, { force: true });
    rmSync(`${output}.propdata-run.json`, { force: true });
  }
}

/** Records written, by whatever status: one per input row. */
export function recordsOf(report) {
  return Object.values(report.records).reduce((sum, count) => sum + count, 0);
}
