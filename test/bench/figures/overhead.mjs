import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, runNode } from '../child.mjs';
import { inputFile } from '../input-file.mjs';
import { WORK } from '../paths.mjs';
import { batchArgs, recordsOf, runBatch } from '../propdata-run.mjs';
import { startSandbox } from '../sandbox.mjs';
import { startServerProcess } from '../server-process.mjs';

const ROWS = 100_000;
const ROUNDS = 3;
const TARGET = 0.8;
const script = (name) => fileURLToPath(new URL(`../${name}`, import.meta.url));

const perSecond = (wallMs) => ROWS / (wallMs / 1000);
const count = (value) => Math.round(value).toLocaleString('en-US');

/**
 * Local overhead: propdata's items per second divided by a hand-written client's rows per second,
 * both against a server that costs nothing but HTTP and JSON (json-server.mjs), so that the ratio
 * is propdata's own cost: the hand-written client does the same wire work (csv-parse, 100-item
 * POSTs with four in flight, JSON, the same CSV columns) and nothing else, while propdata also
 * validates, deduplicates, keeps input order, paces and stays resumable. Rounds alternate the
 * runs so that a disturbance of the machine hits all of them; medians are compared.
 *
 * References, no target: both clients through the sandbox with no rate limit (where the sandbox's
 * own CPU shares the machine), and a bare csv-parse → csv-stringify round trip of the same file
 * (the ceiling of any CSV-in, CSV-out tool on this machine).
 */
export async function overhead() {
  const input = await inputFile(ROWS);
  const sandbox = await startSandbox(['--rate-limit', 'off']);
  const jsonServer = await startServerProcess([script('reference/json-server.mjs')]);
  const handWritten = (url) => runNode([script('reference/hand-written-client.mjs'), url, input, join(WORK, 'overhead-hand-written.csv')]);
  const jsonServerEnv = { ...sandbox.env, PROPDATA_BASE_URL: jsonServer.url };
  const runs = {
    bare: [],
    propdata: [],
    propdataViaJsonServer: [],
    scriptViaSandbox: [],
    scriptViaJsonServer: [],
    propdataCpu: [],
    sandboxCpu: [],
  };
  let last;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const copy = await runNode([script('bare-roundtrip.mjs'), input, join(WORK, 'overhead-bare.csv')]);
      runs.bare.push(perSecond(copy.wallMs));
      // Without rate headers the client paces at --rate: make it no limit at all.
      const args = batchArgs(input, join(WORK, 'overhead-out.csv'), join(WORK, 'overhead-report.json'), ['--rate', '1000000000']);
      const sandboxBefore = sandbox.cpuSeconds();
      last = await runBatch(args, { env: sandbox.env, measureUsage: true });
      if (recordsOf(last.report) !== ROWS) throw new Error(`expected ${ROWS} records, got ${recordsOf(last.report)}`);
      runs.propdata.push(perSecond(last.wallMs));
      runs.propdataCpu.push(last.cpuMs / 1000);
      if (sandboxBefore !== undefined) runs.sandboxCpu.push(sandbox.cpuSeconds() - sandboxBefore);
      runs.propdataViaJsonServer.push(perSecond((await runBatch(args, { env: jsonServerEnv })).wallMs));
      runs.scriptViaSandbox.push(perSecond((await handWritten(sandbox.url)).wallMs));
      runs.scriptViaJsonServer.push(perSecond((await handWritten(jsonServer.url)).wallMs));
    }
  } finally {
    await Promise.all([sandbox.stop(), jsonServer.stop()]);
  }
  const [bare, propdata, propdataViaJsonServer, scriptViaSandbox, scriptViaJsonServer] = [
    runs.bare,
    runs.propdata,
    runs.propdataViaJsonServer,
    runs.scriptViaSandbox,
    runs.scriptViaJsonServer,
  ].map(median);
  const ratio = propdataViaJsonServer / scriptViaJsonServer;
  const reference = (value) => ({ target: 'none set', pass: undefined, value: value.toFixed(3) });
  return {
    measurements: [
      ['rows', count(ROWS)],
      [`bare csv-parse → csv-stringify, rows/s (median of ${ROUNDS})`, count(bare)],
      [`propdata property value via the sandbox, items/s (median of ${ROUNDS})`, count(propdata)],
      ['propdata requests, retries, 429s (last round)', `${last.report.requests}, ${last.report.retries}, ${last.report.rateLimitWaits}`],
      [
        'CPU during a propdata run: propdata, sandbox (medians)',
        `${median(runs.propdataCpu).toFixed(1)} s, ${runs.sandboxCpu.length > 0 ? `${median(runs.sandboxCpu).toFixed(1)} s` : 'not measured here'}`,
      ],
      [`reference: propdata via a JSON-only server, items/s (median of ${ROUNDS})`, count(propdataViaJsonServer)],
      [`reference: hand-written client via the sandbox, rows/s (median of ${ROUNDS})`, count(scriptViaSandbox)],
      [`reference: hand-written client via a JSON-only server, rows/s (median of ${ROUNDS})`, count(scriptViaJsonServer)],
    ],
    checks: [
      {
        name: 'propdata ÷ hand-written client, both via a JSON-only server',
        value: ratio.toFixed(3),
        target: `≥ ${TARGET}`,
        pass: ratio >= TARGET,
      },
      { name: 'propdata ÷ hand-written client, both via the sandbox', ...reference(propdata / scriptViaSandbox) },
      { name: 'propdata items/s ÷ bare rows/s', ...reference(propdata / bare) },
      { name: 'hand-written client via a JSON-only server ÷ bare', ...reference(scriptViaJsonServer / bare) },
    ],
  };
}
