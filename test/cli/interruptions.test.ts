import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { openConfigStore } from '../../src/config/store.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { runMain } from '../helpers/run-main.js';
import { envFor, WIDE_OPEN } from '../helpers/sandbox-per-test.js';

/**
 * Interruptions of the compiled CLI at the service's pace: a sandbox with a tight window and some
 * latency, so that a run is mostly waiting, as a nightly job is. What is checked is what a user
 * pays for: every component charged is a written row, but for the requests in flight at a kill.
 */
const ROWS = 240;
const BATCH = 10;
const CONCURRENCY = 2;
/** The most a kill can cost: what can be in flight. */
const IN_FLIGHT = BATCH * CONCURRENCY;

const sandboxes: RunningSandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
});

async function sandbox(paced: boolean): Promise<RunningSandbox> {
  const running = await startSandbox(
    paced
      ? { rateLimits: [{ limit: 60, periodSeconds: 1 }], credit: 1_000_000, latencyMs: [50, 150] }
      : { rateLimits: WIDE_OPEN, credit: 1_000_000 },
  );
  sandboxes.push(running);
  return running;
}

function workdir() {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-stop-'));
  const input = join(dir, 'in.csv');
  writeFileSync(input, `address,zipcode\n${Array.from({ length: ROWS }, (_, i) => `${i + 1} Main St,21201`).join('\n')}\n`);
  return { dir, input };
}

const args = (input: string, output: string) => [
  'property',
  'value',
  '-i',
  input,
  '-o',
  output,
  '--batch-size',
  String(BATCH),
  '--concurrency',
  String(CONCURRENCY),
  '-q',
];

const recordsIn = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').length - 1 : 0);

const start = (argv: string[], running: RunningSandbox): CliProcess =>
  startCli(argv, { env: envFor(running), stdio: ['ignore', 'ignore', 'pipe'] });

/** Waits until the output holds at least `rows` records (the run is well under way). */
async function untilWritten(path: string, rows: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (recordsIn(path) < rows) {
    if (Date.now() > deadline) throw new Error(`the output never reached ${rows} records`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function reference(input: string, dir: string): Promise<Buffer> {
  const output = join(dir, 'reference.csv');
  const result = await runMain(args(input, output), { env: envFor(await sandbox(false)) });
  expect(result.code).toBe(0);
  return readFileSync(output);
}

describe('interrupting a paced run', () => {
  it('SIGTERM: acknowledged at once, nothing new sent, every charged row written, and the printed command resumes it', async () => {
    const running = await sandbox(true);
    const { dir, input } = workdir();
    const output = join(dir, 'out.csv');
    const cli = start(
      args(input, output).filter((arg) => arg !== '-q'),
      running,
    );
    await untilWritten(output, 60);
    const sentBefore = running.usage().components;
    cli.child.kill('SIGTERM');
    const { code } = await cli.exited;
    expect(code).toBe(130);
    expect(cli.stderr()).toMatch(/stopping: finishing \d+ requests in flight/);
    const charged = running.usage().components;
    expect(charged - sentBefore).toBeLessThanOrEqual(IN_FLIGHT);
    // Every charged item is in the output: nothing paid for is lost.
    expect(recordsIn(output)).toBe(charged);

    const resumeLine = /continue with:\n\s+(.+)/.exec(cli.stderr())?.[1];
    expect(resumeLine).toContain('--resume');
    expect(resumeLine).not.toContain('****');
    const resumed = await runMain([...args(input, output), '--resume'], { env: envFor(running) });
    expect(resumed.code).toBe(0);
    expect(running.usage().components).toBe(ROWS);
    expect(readFileSync(output).equals(await reference(input, dir))).toBe(true);
  });

  it('SIGTERM stops cleanly with credentials from the stored config too', async () => {
    const running = await sandbox(true);
    const { dir, input } = workdir();
    const output = join(dir, 'out.csv');
    const configDir = join(dir, 'config');
    const config = openConfigStore({ PROPDATA_CONFIG_DIR: configDir });
    config.set('key', running.key);
    config.set('secret', running.secret);
    config.set('base-url', running.url);
    const cli = startCli(
      args(input, output).filter((arg) => arg !== '-q'),
      {
        env: { PROPDATA_API_KEY: undefined, PROPDATA_API_SECRET: undefined, PROPDATA_BASE_URL: undefined, PROPDATA_CONFIG_DIR: configDir },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    await untilWritten(output, 40);
    cli.child.kill('SIGTERM');
    const { code } = await cli.exited;
    // Loading the config must not install anything that kills the process at the first signal.
    expect(code).toBe(130);
    expect(cli.stderr()).toMatch(/propdata: interrupted/);
    expect(cli.stderr()).toMatch(/continue with:/);
  });

  it('kill -9 twice, then --resume: the finished file is whole and at most the requests in flight were paid twice', async () => {
    const running = await sandbox(true);
    const { dir, input } = workdir();
    const output = join(dir, 'out.csv');
    for (const rows of [40, 120]) {
      const cli = start([...args(input, output), ...(existsSync(output) ? ['--resume'] : [])], running);
      await untilWritten(output, rows);
      cli.child.kill('SIGKILL');
      await cli.exited;
    }
    const resumed = await runMain([...args(input, output), '--resume'], { env: envFor(running) });
    expect(resumed.code).toBe(0);
    expect(readFileSync(output).equals(await reference(input, dir))).toBe(true);
    expect(running.usage().components - ROWS).toBeLessThanOrEqual(2 * IN_FLIGHT);
  });
});
