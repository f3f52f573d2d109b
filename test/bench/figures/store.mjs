import { statSync } from 'node:fs';
import { join } from 'node:path';
import { median } from '../child.mjs';
import { inputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { batchArgs, recordsOf, runBatch } from '../propdata-run.mjs';
import { startSandbox } from '../sandbox.mjs';

/** Every distinct Baltimore row once: what fills the store. */
const DISTINCT = 27_190;
const SMALL = 10_000;
const LARGE = Number(process.env.PROPDATA_BENCH_STORE_ROWS ?? 1_000_000);
const MAX_RATIO = 1.3;
const MB = 1_000_000;

const sizeOf = (path) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/**
 * A nightly rerun answered entirely from the local store: the store is filled by one run over
 * every distinct row, then runs of 10,000 and of a million rows (the same rows over and over)
 * with --max-age send nothing. Peak RSS must not grow with the rows, and the store's size per
 * kept answer says what a year of nightly runs costs on disk.
 */
export async function store() {
  const file = join(WORK, 'bench-store.db');
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      (await import('node:fs')).rmSync(`${file}${suffix}`);
    } catch {
      // not there
    }
  }
  const sandbox = await startSandbox(['--rate-limit', 'off']);
  try {
    const fill = await inputFile(DISTINCT);
    const filled = await runBatch(
      batchArgs(fill, join(WORK, 'store-fill.csv'), join(WORK, 'store-fill.json'), ['--store', file, '--rate', '1000000000']),
      { env: sandbox.env },
    );
    const answers = filled.report.requests > 0 ? recordsOf(filled.report) : 0;
    const bytes = sizeOf(file) + sizeOf(`${file}-wal`);
    const fromStore = async (rows) => {
      const input = await inputFile(rows);
      const run = await runBatch(
        batchArgs(input, join(WORK, `store-${rows}.csv`), join(WORK, `store-${rows}.json`), ['--store', file, '--max-age', '1d']),
        {
          env: sandbox.env,
          measureUsage: true,
        },
      );
      if (run.report.requests !== 0) throw new Error(`a run answered from the store sent ${run.report.requests} requests`);
      return run;
    };
    const small = [];
    for (let round = 0; round < 3; round++) small.push((await fromStore(SMALL)).maxRss);
    const large = await fromStore(LARGE);
    const ratio = large.maxRss / median(small);
    return {
      measurements: [
        ['answers kept (one run over every distinct Baltimore row)', answers.toLocaleString('en-US')],
        ['store size per kept answer (property/value)', `${Math.round(bytes / Math.max(answers, 1))} bytes`],
        [`peak RSS, ${SMALL.toLocaleString('en-US')} rows from the store (median of 3)`, `${(median(small) / MB).toFixed(1)} MB`],
        [`peak RSS, ${LARGE.toLocaleString('en-US')} rows from the store`, `${(large.maxRss / MB).toFixed(1)} MB`],
        [
          `${LARGE.toLocaleString('en-US')} rows from the store: wall time, rows/s`,
          `${(large.wallMs / 1000).toFixed(1)} s, ${Math.round(LARGE / (large.wallMs / 1000)).toLocaleString('en-US')}`,
        ],
      ],
      checks: [
        {
          name: `peak RSS ${LARGE.toLocaleString('en-US')} rows ÷ 10,000 rows, answered from the store`,
          value: ratio.toFixed(2),
          target: `≤ ${MAX_RATIO}`,
          pass: ratio <= MAX_RATIO,
        },
      ],
    };
  } finally {
    await sandbox.stop();
  }
}
