import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { median, runNode } from '../child.mjs';
import { BIN, WORK } from '../paths.mjs';
import { startSandbox } from '../sandbox.mjs';

const ROUNDS = 10;
const MAX_HELP_RATIO = 2.5;
/** Issue 15's goal for a one-off query, which also loads the HTTP client and makes one request. */
const MAX_QUERY_RATIO = 3;

/**
 * Start-up: the wall time of `propdata --help` and of a one-off query to a sandbox that is
 * already running, each over the wall time of `node -e 0` (node's own start), medians of
 * rounds that alternate the three.
 */
export async function startup() {
  const sandbox = await startSandbox(['--rate-limit', 'off']);
  const times = { node: [], help: [], query: [] };
  // A store of the bench's own, as every figure's: the one-offs record into it, never into the user's.
  mkdirSync(WORK, { recursive: true });
  const home = mkdtempSync(join(WORK, 'startup-home-'));
  try {
    const query = [BIN, 'property', 'value', '--address', '405 DYER AVE', '--zipcode', '21136', '--json'];
    for (let round = 0; round < ROUNDS; round++) {
      times.node.push((await runNode(['-e', '0'])).wallMs);
      times.help.push((await runNode([BIN, '--help'])).wallMs);
      times.query.push((await runNode(query, { env: { ...sandbox.env, PROPDATA_HOME: home } })).wallMs);
    }
  } finally {
    await sandbox.stop();
    rmSync(home, { recursive: true, force: true });
  }
  const [node, help, query] = [median(times.node), median(times.help), median(times.query)];
  return {
    measurements: [
      [`\`node -e 0\` (median of ${ROUNDS})`, `${node.toFixed(0)} ms`],
      ['`propdata --help`', `${help.toFixed(0)} ms`],
      ['`propdata property value --address … --zipcode … --json` to a running sandbox', `${query.toFixed(0)} ms`],
    ],
    checks: [
      {
        name: '`--help` ÷ `node -e 0`',
        value: (help / node).toFixed(2),
        target: `≤ ${MAX_HELP_RATIO}`,
        pass: help / node <= MAX_HELP_RATIO,
      },
      {
        name: 'one-off query ÷ `node -e 0`',
        value: (query / node).toFixed(2),
        target: `≤ ${MAX_QUERY_RATIO}`,
        pass: query / node <= MAX_QUERY_RATIO,
      },
    ],
  };
}
