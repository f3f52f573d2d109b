import { join } from 'node:path';
import { median } from '../child.mjs';
import { inputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { batchArgs, recordsOf, runBatch } from '../propdata-run.mjs';
import { startSandbox } from '../sandbox.mjs';

const SMALL = 10_000;
const LARGE = 1_000_000;
const SMALL_ROUNDS = 3;
const MAX_RATIO = 1.3;
const MAX_PEAK_MB = 250;
const MB = 1_000_000;

async function peakRss(rows, sandbox, format = 'csv') {
  const input = await inputFile(rows);
  const args = batchArgs(input, join(WORK, `memory-${rows}.${format}`), join(WORK, `memory-${rows}.json`), ['--rate', '1000000000']);
  const run = await runBatch(args, { env: sandbox.env, measureUsage: true });
  if (recordsOf(run.report) !== rows) throw new Error(`expected ${rows} records, got ${recordsOf(run.report)}`);
  return run;
}

/** One output format's figure: its measurements and checks, each named with the format after CSV's. */
async function formatFigure(sandbox, format) {
  const small = [];
  for (let round = 0; round < SMALL_ROUNDS; round++) small.push((await peakRss(SMALL, sandbox, format)).maxRss);
  const large = await peakRss(LARGE, sandbox, format);
  const ratio = large.maxRss / median(small);
  const largeMb = large.maxRss / MB;
  const named = (text) => (format === 'csv' ? text : `${format}: ${text}`);
  return {
    measurements: [
      [named(`peak RSS, ${SMALL.toLocaleString('en-US')} rows (median of ${SMALL_ROUNDS})`), `${(median(small) / MB).toFixed(1)} MB`],
      [named(`peak RSS, ${LARGE.toLocaleString('en-US')} rows`), `${largeMb.toFixed(1)} MB`],
      [
        named(`${LARGE.toLocaleString('en-US')} rows: wall time, items/s`),
        `${(large.wallMs / 1000).toFixed(1)} s, ${Math.round(LARGE / (large.wallMs / 1000)).toLocaleString('en-US')}`,
      ],
    ],
    checks: [
      { name: named('peak RSS 1,000,000 rows ÷ 10,000 rows'), value: ratio.toFixed(2), target: `≤ ${MAX_RATIO}`, pass: ratio <= MAX_RATIO },
      {
        name: named('peak RSS 1,000,000 rows'),
        value: `${largeMb.toFixed(1)} MB`,
        target: `< ${MAX_PEAK_MB} MB`,
        pass: largeMb < MAX_PEAK_MB,
      },
    ],
  };
}

/**
 * Memory: the peak RSS of the propdata process itself on 1,000,000 rows, divided by its peak
 * on 10,000 rows. Flat memory means the ratio stays near 1 whatever the machine. Measured for the
 * CSV output and for the xlsx workbook (streamed by exceljs, which has more to hold per row).
 */
export async function memory() {
  await inputFile(LARGE);
  const sandbox = await startSandbox(['--rate-limit', 'off']);
  try {
    const figures = [await formatFigure(sandbox, 'csv'), await formatFigure(sandbox, 'xlsx')];
    return { measurements: figures.flatMap((figure) => figure.measurements), checks: figures.flatMap((figure) => figure.checks) };
  } finally {
    await sandbox.stop();
  }
}
