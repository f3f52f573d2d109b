import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { startCli } from '../helpers/cli-process.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { runMain } from '../helpers/run-main.js';
import { envFor, WIDE_OPEN } from '../helpers/sandbox-per-test.js';

/**
 * A week of nightly runs as a nightly user makes them, against a sandbox with faults on: 3,000 rows,
 * 5% of them changing on some nights, one night adding property/rental_value through an mget (and
 * killed with kill -9 half-way, then run again), then back to property/value alone. The week must
 * bill each answer it needs once: the sandbox counts every section charged for an item it had
 * charged before (`chargedAgain`), and nothing but the requests in flight at the kill may be.
 */
const ROWS = 3_000;
const BATCH = 100;
const CONCURRENCY = 4;

let sandbox: RunningSandbox;
let env: Record<string, string>;
let dir: string;
const input = () => join(dir, 'homes.csv');

beforeAll(async () => {
  sandbox = await startSandbox({
    rateLimits: WIDE_OPEN,
    credit: 10_000_000,
    strict: true,
    failRate: 0.03,
    resetRate: 0.02,
    // Each request takes 20-40 ms: the mget night, 30 requests four at a time, is killed well before its end.
    latencyMs: [20, 40],
    seed: 'week',
  });
  dir = mkdtempSync(join(tmpdir(), 'propdata-week-'));
  env = { ...envFor(sandbox), PROPDATA_HOME: join(dir, 'home') };
});

afterAll(async () => {
  await sandbox.close();
});

/** Tonight's rows: those at the indices `changed` has seen are new homes from the night they changed. */
const changedOn = new Map<number, number>();
function homes(night: number, changing: number): void {
  for (let k = 0; k < changing; k++) changedOn.set((night * 997 + k * 19) % ROWS, night);
  const lines = Array.from({ length: ROWS }, (_, i) => {
    const since = changedOn.get(i);
    return since === undefined ? `${i + 1} Week Ln,21201` : `${i + 1} Night${since} Ct,21201`;
  });
  writeFileSync(input(), `address,zipcode\n${lines.join('\n')}\n`);
}

const VALUE = ['property', 'value'];
const BOTH = ['mget', 'property/value,property/rental_value'];
const options = (output: string) => [
  '--input',
  input(),
  '--output',
  join(dir, output),
  '--resume',
  '--max-age',
  '30d',
  '--max-retries',
  '10',
  '--quiet',
];

/** One night in-process; backoff on a clock that does not make the test wait. */
async function night(command: string[], output: string): Promise<number> {
  return (await runMain([...command, ...options(output)], { env, clock: new FakeClock(Date.now()) })).code;
}

/** One night through the compiled bin, killed with kill -9 once the account has been charged `killAt` components. */
async function killedNight(command: string[], output: string, killAt: number): Promise<NodeJS.Signals | null> {
  const cli = startCli([...command, ...options(output)], { env });
  const poll = setInterval(() => {
    if (sandbox.usage().components >= killAt) {
      clearInterval(poll);
      cli.child.kill('SIGKILL');
    }
  }, 2);
  const { signal } = await cli.exited;
  clearInterval(poll);
  return signal;
}

const charged = () => sandbox.usage().components;
const chargedAgain = () => sandbox.usage().chargedAgain.sections;
const rowsIn = (output: string) => readFileSync(join(dir, output), 'utf8').trimEnd().split('\n').length - 1;

describe('a week of nightly runs', () => {
  it('bills each answer it needs once, but what was in flight at a kill', { timeout: 120_000 }, async () => {
    homes(1, 0);
    expect(await night(VALUE, 'values.csv')).toBe(0);
    expect(charged()).toBe(ROWS);

    homes(2, ROWS * 0.05);
    expect(await night(VALUE, 'values.csv')).toBe(0);
    expect(charged()).toBe(ROWS + 150);

    // The mget night: only rental_value is bought. Killed half-way, then run again.
    homes(3, 0);
    expect(await killedNight(BOTH, 'both.csv', ROWS + 150 + 1_500)).toBe('SIGKILL');
    expect(await night(BOTH, 'both.csv')).toBe(0);
    expect(rowsIn('both.csv')).toBe(ROWS);
    const inFlight = BATCH * CONCURRENCY * 2;
    // Sections bought again (charged, or 204s that cost nothing) are only those in flight at the kill.
    expect(chargedAgain()).toBeLessThanOrEqual(inFlight);
    expect(charged() - (ROWS + 150 + ROWS)).toBeLessThanOrEqual(inFlight);
    const afterKill = { charged: charged(), again: chargedAgain() };

    // Back to one endpoint: the values the mget kept serve it.
    homes(4, ROWS * 0.05);
    expect(await night(VALUE, 'values.csv')).toBe(0);
    homes(5, 0);
    expect(await night(BOTH, 'both.csv')).toBe(0);
    homes(6, ROWS * 0.05);
    expect(await night(VALUE, 'values.csv')).toBe(0);
    homes(7, 0);
    expect(await night(VALUE, 'values.csv')).toBe(0);

    // Nights 4 and 6 changed 150 rows each: their values, and night 5 their rental values; nothing else.
    expect(charged() - afterKill.charged).toBe(150 + 150 + 150);
    expect(chargedAgain()).toBe(afterKill.again);
    expect(rowsIn('values.csv')).toBe(ROWS);
  });
});
