import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockOutput } from '../../src/output/output-lock.js';
import { runMain } from '../helpers/run-main.js';
import { chunkFor, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

/** --resume as a user meets it, end to end through main() against a scripted service. */
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const RATE = {
  'x-ratelimit-period': '60',
  'x-ratelimit-limit': '100000',
  'x-ratelimit-remaining': '99999',
  'x-ratelimit-reset': '4102444800',
};

/** A service that answers every item, except while `failing` holds: then items on "Flaky" streets get 503s. */
async function service(state: { failing: boolean; sent: string[] }) {
  server = await startScriptedServer((request) => {
    const items = JSON.parse(request.body) as { address: string }[];
    if (state.failing && items.some((item) => item.address.includes('Flaky'))) return { status: 503, body: 'down', headers: RATE };
    state.sent.push(...items.map((item) => item.address));
    return { status: 200, body: JSON.stringify(items.map(() => chunkFor(['property/value']))), headers: RATE };
  });
  return { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's3cret' };
}

function files() {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-resume-cli-'));
  const input = join(dir, 'in.csv');
  const rows = Array.from({ length: 30 }, (_, i) => `${i + 1} ${i % 7 === 3 ? 'Flaky' : 'Main'} St,21201`);
  writeFileSync(input, `address,zipcode\n${rows.join('\n')}\n`);
  return { dir, input, output: join(dir, 'out.csv') };
}

const args = (input: string, output: string) => [
  'property',
  'value',
  '-i',
  input,
  '-o',
  output,
  '--batch-size',
  '5',
  '--max-retries',
  '0',
  '-q',
];

describe('--resume', () => {
  it('resends exactly the error rows and rewrites them in place, byte-identical to a run that had not failed', async () => {
    const state = { failing: true, sent: [] as string[] };
    const env = await service(state);
    const { dir, input, output } = files();
    const failed = await runMain(args(input, output), { env });
    expect(failed.code).toBe(3);
    const errorRows = readFileSync(output, 'utf8')
      .split('\n')
      .filter((line) => line.includes(',error,')).length;
    expect(errorRows).toBeGreaterThan(0);

    state.failing = false;
    state.sent = [];
    const retried = await runMain([...args(input, output), '--resume'], { env });
    expect(retried.code).toBe(0);
    // Only the rows of the failed requests went out again: nothing that had an answer is paid twice.
    expect(state.sent).toHaveLength(errorRows);

    const reference = join(dir, 'reference.csv');
    expect((await runMain(args(input, reference), { env })).code).toBe(0);
    expect(readFileSync(output).equals(readFileSync(reference))).toBe(true);

    const again = await runMain([...args(input, output).filter((arg) => arg !== '-q'), '--resume'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/nothing to resume/);
  });

  it('writes an output edited by hand afresh, saying what is wrong with it, and never fails the job', async () => {
    const env = await service({ failing: false, sent: [] });
    const { input, output } = files();
    await runMain(args(input, output), { env });
    const whole = readFileSync(output, 'utf8');
    const lines = whole.split('\n');
    writeFileSync(output, [...lines.slice(0, 5), ...lines.slice(6)].join('\n'));
    const rerun = await runMain([...args(input, output).filter((arg) => arg !== '-q'), '--resume'], { env });
    expect(rerun.code).toBe(0);
    expect(rerun.stderr).toMatch(/--resume: .*record 5 has _row 6: a line was removed or added by hand.*; writing .* afresh/);
    expect(readFileSync(output, 'utf8')).toBe(whole);
  });

  it('refuses a second run on an output another run is writing, naming it', async () => {
    const env = await service({ failing: false, sent: [] });
    const { input, output } = files();
    const held = await lockOutput(output);
    try {
      const refused = await runMain(args(input, output), { env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`is being written by propdata pid ${process.pid}`));
    } finally {
      await held.release();
    }
    expect((await runMain(args(input, output), { env })).code).toBe(0);
  });
});
