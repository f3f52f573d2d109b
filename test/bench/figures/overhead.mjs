import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, runNode } from '../child.mjs';
import { inputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { batchArgs, recordsOf, runBatch } from '../propdata-run.mjs';
import { startSandbox } from '../sandbox.mjs';

const ROWS = 100_000;
const ROUNDS = 3;
const TARGET = 0.5;

/**
 * Local overhead: propdata's items per second through a sandbox with no rate limit, divided by
 * the rows per second of a bare csv-parse → csv-stringify round trip of the same file. Rounds
 * alternate the two so that a disturbance of the machine hits both; the medians are compared.
 */
export async function overhead() {
  const input = await inputFile(ROWS);
  const sandbox = await startSandbox(['--rate-limit', 'off']);
  const bare = [];
  const propdata = [];
  const propdataCpu = [];
  const sandboxCpu = [];
  let last;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const copy = await runNode([fileURLToPath(new URL('../bare-roundtrip.mjs', import.meta.url)), input, join(WORK, 'overhead-bare.csv')]);
      bare.push(ROWS / (copy.wallMs / 1000));
      // Without rate headers the client paces at --rate: make it no limit at all.
      const args = batchArgs(input, join(WORK, 'overhead-out.csv'), join(WORK, 'overhead-report.json'), ['--rate', '1000000000']);
      const sandboxBefore = sandbox.cpuSeconds();
      last = await runBatch(args, { env: sandbox.env, measureUsage: true });
      if (recordsOf(last.report) !== ROWS) throw new Error(`expected ${ROWS} records, got ${recordsOf(last.report)}`);
      propdata.push(ROWS / (last.wallMs / 1000));
      propdataCpu.push(last.cpuMs / 1000);
      if (sandboxBefore !== undefined) sandboxCpu.push(sandbox.cpuSeconds() - sandboxBefore);
    }
  } finally {
    await sandbox.stop();
  }
  const ratio = median(propdata) / median(bare);
  return {
    measurements: [
      ['rows', ROWS.toLocaleString('en-US')],
      [`bare csv-parse → csv-stringify, rows/s (median of ${ROUNDS})`, Math.round(median(bare)).toLocaleString('en-US')],
      [`propdata property value via the sandbox, items/s (median of ${ROUNDS})`, Math.round(median(propdata)).toLocaleString('en-US')],
      ['propdata requests, retries, 429s (last round)', `${last.report.requests}, ${last.report.retries}, ${last.report.rateLimitWaits}`],
      ['CPU during a propdata run: propdata, sandbox (medians)', `${median(propdataCpu).toFixed(1)} s, ${sandboxCpu.length > 0 ? `${median(sandboxCpu).toFixed(1)} s` : 'not measured here'}`],
    ],
    checks: [{ name: 'propdata items/s ÷ bare rows/s', value: ratio.toFixed(3), target: `≥ ${TARGET}`, pass: ratio >= TARGET }],
  };
}
