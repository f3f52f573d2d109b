import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { chunkFor, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/** Reruns as a nightly job makes them: the store answers what it has, only the rest is sent and paid. */
const sandbox = sandboxPerTest();
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function files(rows = 40) {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-rerun-'));
  const input = join(dir, 'in.csv');
  writeFileSync(
    input,
    `address,zipcode,meta\n${Array.from({ length: rows }, (_, i) => `${i + 1} ${i % 9 === 4 ? 'Flaky' : 'Main'} St,21201,m${i}`).join('\n')}\n`,
  );
  return { dir, input, store: join(dir, 'propdata.db') };
}

/** The batch, into `store` (undefined: --no-store). */
const batch = (input: string, output: string, store: string | undefined, extra: string[] = []) => [
  'mget',
  'property/value,property/geocode',
  '-i',
  input,
  '-o',
  output,
  ...(store === undefined ? ['--no-store'] : ['--store', store]),
  '--batch-size',
  '10',
  '-q',
  ...extra,
];

describe('reruns with the local store', () => {
  it('a rerun with --max-age sends nothing, costs nothing and writes the same bytes', async () => {
    const env = await sandbox.start();
    const { dir, input, store } = files();
    expect((await runMain(batch(input, join(dir, 'first.csv'), store), { env })).code).toBe(0);
    const paid = sandbox.current.usage();
    const rerun = await runMain(batch(input, join(dir, 'second.csv'), store, ['--max-age', '1h', '--report', join(dir, 'report.json')]), {
      env,
    });
    expect(rerun.code).toBe(0);
    expect(sandbox.current.usage()).toEqual(paid);
    expect(readFileSync(join(dir, 'second.csv')).equals(readFileSync(join(dir, 'first.csv')))).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      fromStore: number;
      savedByStore: number;
      requests: number;
    };
    expect(report).toMatchObject({ fromStore: 40, requests: 0 });
    expect(report.savedByStore).toBeGreaterThan(0);

    // Without --max-age nothing is reused: the store only records.
    await runMain(batch(input, join(dir, 'third.csv'), store), { env });
    expect(sandbox.current.usage().components).toBe(paid.components * 2);
  });

  it('a run with the store, one without and a rerun from it write the same bytes, paced at 250/10', async () => {
    const env = await sandbox.start({ rateLimits: [{ limit: 250, periodSeconds: 10 }] });
    const { dir, input, store } = files(60);
    const outputs = ['none.csv', 'store.csv', 'rerun.csv'].map((name) => join(dir, name));
    const [none, stored, rerun] = outputs as [string, string, string];
    expect((await runMain(batch(input, none, undefined), { env })).code).toBe(0);
    expect((await runMain(batch(input, stored, store), { env })).code).toBe(0);
    expect((await runMain(batch(input, rerun, store, ['--max-age', '1h']), { env })).code).toBe(0);
    for (const output of [stored, rerun]) expect(readFileSync(output).equals(readFileSync(none)), output).toBe(true);
  });

  it('a section bought through an mget is not bought again by another command naming its endpoint', async () => {
    const env = await sandbox.start();
    const { dir, input, store } = files(12);
    expect((await runMain(batch(input, join(dir, 'mget.csv'), store), { env })).code).toBe(0);
    const paid = sandbox.current.usage();
    for (const command of [
      ['property', 'value'],
      ['call', 'v2/property/value'],
    ]) {
      const output = join(dir, `${command[0]}.csv`);
      const report = join(dir, `${command[0]}.json`);
      const args = [...command, '-i', input, '-o', output, '--store', store, '--max-age', '1h', '-q', '--report', report];
      expect((await runMain(args, { env })).code, command.join(' ')).toBe(0);
      expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ fromStore: 12, requests: 0 });
    }
    expect(sandbox.current.usage()).toEqual(paid);
    // The same rows as a run of that command writes when it buys them.
    await runMain(['property', 'value', '-i', input, '-o', join(dir, 'bought.csv'), '--no-store', '-q'], { env });
    expect(readFileSync(join(dir, 'property.csv'), 'utf8')).toBe(readFileSync(join(dir, 'bought.csv'), 'utf8'));
  });

  it('a rerun after failures sends exactly the rows that failed', async () => {
    const sent: string[] = [];
    let failing = true;
    server = await startScriptedServer((request) => {
      const items = JSON.parse(request.body) as { address: string; meta: string }[];
      if (failing && items.some((item) => item.address.includes('Flaky'))) return { status: 503, body: 'down' };
      sent.push(...items.map((item) => item.address));
      return { status: 200, body: JSON.stringify(items.map((item) => chunkFor(['property/value', 'property/geocode'], item.meta))) };
    });
    const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'key-for-store-test', PROPDATA_API_SECRET: 'secret-for-store-test' };
    const { dir, input, store } = files();
    const first = await runMain(batch(input, join(dir, 'out.csv'), store, ['--max-retries', '0', '--concurrency', '1']), { env });
    expect(first.code).toBe(3);
    const failedRows = readFileSync(join(dir, 'out.csv'), 'utf8')
      .split('\n')
      .filter((line) => line.includes(',error,')).length;
    expect(failedRows).toBeGreaterThan(0);
    failing = false;
    sent.length = 0;
    const rerun = await runMain(batch(input, join(dir, 'out.csv'), store, ['--max-age', '1h']), { env });
    expect(rerun.code).toBe(0);
    expect(sent).toHaveLength(failedRows);

    // A one-off's record, left beside the store for its next opening, holds no credentials either.
    const oneOff = await runMain(
      ['property', 'value', '--address', '1 Test St', '--zipcode', '21201', '--meta', 'crm-1', '--store', store, '--json'],
      {
        env,
      },
    );
    expect(oneOff.code).toBe(0);
    const pending = readdirSync(`${store}.pending`).map((name) => readFileSync(join(`${store}.pending`, name)));
    expect(pending).toHaveLength(1);

    // The store holds answers and spend, never the credentials.
    const bytes = readFileSync(store);
    const wal = (() => {
      try {
        return readFileSync(`${store}-wal`);
      } catch {
        return Buffer.alloc(0);
      }
    })();
    for (const secret of [
      'key-for-store-test',
      'secret-for-store-test',
      Buffer.from('key-for-store-test:secret-for-store-test').toString('base64'),
    ]) {
      expect(bytes.includes(secret)).toBe(false);
      expect(wal.includes(secret)).toBe(false);
      expect(pending[0]!.includes(secret)).toBe(false);
    }
  });

  it('usage agrees with what the service counted', async () => {
    const env = await sandbox.start();
    const { dir, input, store } = files(25);
    await runMain(batch(input, join(dir, 'out.csv'), store), { env });
    const usage = await runMain(['usage', '--store', store, '--json'], { env });
    expect(usage.code).toBe(0);
    const total = (JSON.parse(usage.stdout) as { total: { components: number; cost: number } }).total;
    expect(total.components).toBe(sandbox.current.usage().components);
    expect(total.cost).toBeCloseTo(sandbox.current.usage().charged, 6);
  });

  it("one-offs are counted in usage, and with --max-age answered from the store (a batch's answers too) at no charge", async () => {
    const env = await sandbox.start();
    const { dir, input, store } = files(5);
    const oneOff = (address: string, extra: string[] = []) =>
      runMain(['property', 'value', '--address', address, '--zipcode', '21201', '--json', '--store', store, ...extra], { env });
    const first = await oneOff('99 Pine St');
    expect(first.code).toBe(0);
    const usage = async () =>
      (JSON.parse((await runMain(['usage', '--store', store, '--json'], { env })).stdout) as { total: Record<string, number> }).total;
    expect(await usage()).toMatchObject({ requests: 1, components: sandbox.current.usage().components });

    // Asked again with --max-age: the same answer, no request, no charge.
    const paid = sandbox.current.usage();
    const again = await oneOff('99 Pine St', ['--max-age', '1h']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
    expect(sandbox.current.usage()).toEqual(paid);
    expect(await usage()).toMatchObject({ requests: 1, fromStore: 1 });

    // A row a batch paid for is not paid again by a one-off.
    await runMain(['property', 'value', '-i', input, '-o', join(dir, 'out.csv'), '--store', store, '-q'], { env });
    const afterBatch = sandbox.current.usage();
    expect((await oneOff('3 Main St', ['--max-age', '1h'])).code).toBe(0);
    expect(sandbox.current.usage()).toEqual(afterBatch);
  });

  it('a one-off that --max-cost would pass is refused before it is sent (exit 4), with or without a store', async () => {
    const env = await sandbox.start();
    for (const store of [['--store', files(1).store], ['--no-store']]) {
      const refused = await runMain(['property', 'value', '--address', '1 Main St', '--zipcode', '21201', '--max-cost', '0.1', ...store], {
        env,
      });
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(/--max-cost 0.1 USD is less than one item's list price/);
    }
    expect(sandbox.current.usage().requests).toBe(0);
  });

  it('a one-off that --max-cost-month would pass is refused before it is sent (exit 4)', async () => {
    const env = await sandbox.start();
    const { store } = files(1);
    const args = ['property', 'value', '--address', '99 Pine St', '--zipcode', '21201', '--json', '--store', store];
    expect((await runMain(args, { env })).code).toBe(0);
    const paid = sandbox.current.usage();
    expect(paid.charged).toBeGreaterThan(0.2);
    // This month has cost one item; a second would pass 0.4 USD.
    const refused = await runMain([...args, '--max-cost-month', '0.4'], { env });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/--max-cost-month 0.4 USD is reached/);
    expect(sandbox.current.usage()).toEqual(paid);
  });
});

describe('rate limits remembered in the store', () => {
  it("are kept in this machine's time when the service's clock is ahead, so that the next run starts at the service's resets", async () => {
    const aheadMs = 5_000;
    const periodMs = 60_000;
    // A service 5 s ahead: its Date and its window's reset are on its own clock.
    server = await startScriptedServer((request) => {
      const items = JSON.parse(request.body) as { meta: string }[];
      const serviceNow = Date.now() + aheadMs;
      const reset = Math.ceil(serviceNow / periodMs) * periodMs;
      return {
        status: 200,
        body: JSON.stringify(items.map((item) => chunkFor(['property/value'], item.meta))),
        headers: {
          date: new Date(serviceNow).toUTCString(),
          'x-ratelimit-period': '60',
          'x-ratelimit-limit': '100000',
          'x-ratelimit-remaining': '99000',
          'x-ratelimit-reset': String(reset / 1000),
        },
      };
    });
    const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'key-for-skew-test', PROPDATA_API_SECRET: 'secret-for-skew-test' };
    const { dir, input, store } = files(30);
    const run = await runMain(
      ['property', 'value', '-i', input, '-o', join(dir, 'out.csv'), '--store', store, '--batch-size', '10', '-q'],
      {
        env,
      },
    );
    expect(run.code).toBe(0);
    const { openStore, accountId } = await import('../../src/store/index.js');
    const opened = await openStore(store);
    try {
      const remembered = await opened.loadWindows(accountId(new URL(server.url), 'key-for-skew-test'));
      // The service's resets fall on whole minutes of its clock: in local time, about 5 s earlier
      // (within the Date header's second), whichever minute the check falls in.
      const early = (periodMs - (remembered![0]!.resetAt % periodMs)) % periodMs;
      expect(early).toBeGreaterThan(aheadMs - 1_500);
      expect(early).toBeLessThanOrEqual(aheadMs);
    } finally {
      await opened.close();
    }
  });
});

describe('estimate with the local store', () => {
  it('counts only the rows the store cannot answer', async () => {
    const env = await sandbox.start();
    const { dir, input, store } = files(20);
    await runMain(batch(input, join(dir, 'out.csv'), store), { env });
    const more = join(dir, 'more.csv');
    writeFileSync(more, `${readFileSync(input, 'utf8')}999 New St,21201,new\n`);
    const estimate = await runMain(['estimate', 'property/value,property/geocode', '--input', more, '--store', store, '--max-age', '1d'], {
      env,
    });
    expect(estimate.stderr).toBe('');
    expect(estimate.code).toBe(0);
    expect(estimate.stdout).toMatch(/from the store: +20 rows/);
    expect(estimate.stdout).toMatch(/unique items: +1 /);
  });

  it("with --max-cost-month, says where the month's spend so far would stop the run", async () => {
    const env = await sandbox.start();
    const { dir, input, store } = files(20);
    await runMain(batch(input, join(dir, 'out.csv'), store), { env });
    const spent = sandbox.current.usage().charged;
    const other = join(dir, 'other.csv');
    writeFileSync(other, `address,zipcode\n${Array.from({ length: 20 }, (_, i) => `${i + 1} Other St,21201`).join('\n')}\n`);
    const estimate = await runMain(
      ['estimate', 'property/value', '--input', other, '--store', store, '--max-cost-month', String(spent + 1)],
      { env },
    );
    expect(estimate.code).toBe(0);
    expect(estimate.stdout).toContain(
      `--max-cost-month ${spent + 1} USD: this month has cost ${spent.toFixed(2)} USD, so the run would stop after 1.00 more`,
    );
  });
});
