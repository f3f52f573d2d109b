import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { median } from '../child.mjs';
import { inputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { batchArgs, runBatch } from '../propdata-run.mjs';
import { startSandbox } from '../sandbox.mjs';

const ROWS = 100_000;
const ROUNDS = 3;
const FIRST_RUN_TARGET = 0.6;
const RERUN_TARGET = 1.0;

/**
 * What keeping every answer costs a run, and what answering a rerun from the store gains: the same
 * 100,000 rows against the sandbox with no rate limit, without a store, into a new store, and again
 * from it (--max-age). Each figure is the median of three runs, all in this one bench run, so the
 * ratios compare like with like on whatever the machine is doing.
 */
export async function storeSpeed() {
  const sandbox = await startSandbox(['--rate-limit', 'off', '--credit', '100000000']);
  const store = join(WORK, 'store-speed.db');
  const fresh = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${store}${suffix}`, { force: true });
  };
  try {
    const input = await inputFile(ROWS);
    const rowsPerSecond = async (name, extra) => {
      const run = await runBatch(batchArgs(input, join(WORK, `${name}.csv`), join(WORK, `${name}.json`), extra), { env: sandbox.env });
      return ROWS / (run.wallMs / 1000);
    };
    const without = [];
    const first = [];
    const rerun = [];
    for (let round = 0; round < ROUNDS; round++) {
      without.push(await rowsPerSecond('store-speed-none', ['--rate', '1000000000']));
      fresh();
      first.push(await rowsPerSecond('store-speed-first', ['--store', store, '--rate', '1000000000']));
      rerun.push(await rowsPerSecond('store-speed-rerun', ['--store', store, '--max-age', '1d', '--rate', '1000000000']));
    }
    const [none, kept, again] = [median(without), median(first), median(rerun)];
    const rate = (value) => `${Math.round(value).toLocaleString('en-US')} rows/s`;
    return {
      measurements: [
        [`${ROWS.toLocaleString('en-US')} rows, --no-store (median of ${ROUNDS})`, rate(none)],
        [`${ROWS.toLocaleString('en-US')} rows, first run into a new store`, rate(kept)],
        [`${ROWS.toLocaleString('en-US')} rows, rerun answered from the store`, rate(again)],
      ],
      checks: [
        {
          name: 'first run with the store ÷ --no-store',
          value: (kept / none).toFixed(2),
          target: `≥ ${FIRST_RUN_TARGET}`,
          pass: kept / none >= FIRST_RUN_TARGET,
        },
        {
          name: 'rerun from the store ÷ --no-store',
          value: (again / none).toFixed(2),
          target: `≥ ${RERUN_TARGET}`,
          pass: again / none >= RERUN_TARGET,
        },
      ],
    };
  } finally {
    fresh();
    await sandbox.stop();
  }
}
