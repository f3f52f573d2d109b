import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fake-clock.js';
import { runMain } from '../helpers/run-main.js';
import { scriptedServerPerTest } from '../helpers/scripted-server.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/**
 * The one rule users buy propdata for: an answer the account has paid for is never bought again
 * while it is fresh enough, whichever command, run or process asks for it. The sandbox counts
 * every section it charges for an item it had charged before (`chargedAgain`).
 */
const sandbox = sandboxPerTest();

function workspace(rows: number, row: (i: number) => string = (i) => `${i + 1} Main St,21201,m${i}`) {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-night-'));
  const input = join(dir, 'homes.csv');
  writeFileSync(input, `address,zipcode,meta\n${Array.from({ length: rows }, (_, i) => row(i)).join('\n')}\n`);
  return { dir, input, store: join(dir, 'propdata.db'), at: (name: string) => join(dir, name) };
}

const run = (env: Record<string, string>, args: string[]) => runMain([...args, '-q'], { env });

describe('sections, not requests', () => {
  it('a section bought by one command serves every other that needs it: mget, another order, a one-off, call', async () => {
    const env = await sandbox.start();
    const { input, store, at } = workspace(30);
    const withStore = ['--store', store, '--max-age', '30d'];
    expect((await run(env, ['property', 'value', '-i', input, '-o', at('values.csv'), ...withStore])).code).toBe(0);
    expect(sandbox.current.usage().components).toBe(30);

    // The mget buys only rental_value: the value sections are kept.
    const mget = await run(env, ['mget', 'property/value,property/rental_value', '-i', input, '-o', at('both.csv'), ...withStore]);
    expect(mget.code).toBe(0);
    expect(sandbox.current.usage().byEndpoint['property/value']!.components).toBe(30);
    expect(sandbox.current.usage().byEndpoint['property/rental_value']!.components).toBe(30);

    // Any set and order of those components, a single endpoint, a one-off and call: nothing more.
    const before = sandbox.current.usage();
    expect(
      (await run(env, ['mget', 'property/rental_value,property/value', '-i', input, '-o', at('swapped.csv'), ...withStore])).code,
    ).toBe(0);
    expect((await run(env, ['property', 'rental-value', '-i', input, '-o', at('rents.csv'), ...withStore])).code).toBe(0);
    const oneOff = await runMain(['property', 'value', '--address', '1 Main St', '--zipcode', '21201', '--json', ...withStore], { env });
    expect(oneOff.code).toBe(0);
    expect((await run(env, ['call', 'v2/property/value', '-i', input, '-o', at('called.csv'), ...withStore])).code).toBe(0);
    expect(sandbox.current.usage().components).toBe(before.components);
    expect(sandbox.current.usage().chargedAgain).toEqual({ sections: 0, usd: 0 });

    // The swapped mget writes its sections in its own order, with the same figures.
    const header = readFileSync(at('swapped.csv'), 'utf8').split('\n')[0]!;
    expect(header.indexOf('property/rental_value.api_code')).toBeLessThan(header.indexOf('property/value.api_code'));
  });

  it('an mget sends each item only the components it lacks, items lacking the same set together', async () => {
    const env = await sandbox.start();
    const { input, store, at } = workspace(20);
    const half = at('half.csv');
    writeFileSync(half, readFileSync(input, 'utf8').split('\n').slice(0, 11).join('\n') + '\n');
    const withStore = ['--store', store, '--max-age', '30d'];
    expect((await run(env, ['property', 'value', '-i', half, '-o', at('a.csv'), ...withStore])).code).toBe(0);
    const dry = await runMain(['mget', 'property/value,property/school', '-i', input, '--dry-run', '--json', ...withStore], { env });
    expect(JSON.parse(dry.stdout)).toMatchObject({ uniqueItems: 20, partlyFromStore: 10, components: 30 });
    const result = await run(env, [
      'mget',
      'property/value,property/school',
      '-i',
      input,
      '-o',
      at('b.csv'),
      ...withStore,
      '--report',
      at('r.json'),
    ]);
    expect(result.code).toBe(0);
    expect(sandbox.current.usage().byEndpoint['property/value']!.components).toBe(20);
    expect(sandbox.current.usage().byEndpoint['property/school']!.components).toBe(20);
    const report = JSON.parse(readFileSync(at('r.json'), 'utf8')) as { savedByStore: number };
    expect(report).toMatchObject({ componentsUsed: 30, fromStore: 0, partlyFromStore: 10 });
    // What the store answered in part is in the spend log's savings too, though no row came whole from it.
    const usage = await runMain(['usage', '--store', store, '--json', '--all-accounts'], { env });
    expect(report.savedByStore).toBeGreaterThan(0);
    expect((JSON.parse(usage.stdout) as { total: { saved: number } }).total.saved).toBe(report.savedByStore);
    // Written as the mget of them all would have been, byte for byte.
    expect((await run(env, ['mget', 'property/value,property/school', '-i', input, '-o', at('c.csv'), '--no-store'])).code).toBe(0);
    expect(readFileSync(at('b.csv'), 'utf8')).toBe(readFileSync(at('c.csv'), 'utf8'));
  });

  it("a rerun from the store writes the bytes the service's answers produced, each row with its own meta", async () => {
    const env = await sandbox.start();
    // The same address twice with different meta: the kept answer carries the first row's.
    const { input, store, at } = workspace(6, (i) => `${i % 3 === 2 ? 1 : i + 1} Main St,21201,m${i}`);
    expect((await run(env, ['property', 'geocode', '-i', input, '-o', at('first.csv'), '--store', store])).code).toBe(0);
    expect(
      (await run(env, ['property', 'geocode', '-i', input, '-o', at('again.csv'), '--store', store, '--max-age', '1d', '--no-dedupe']))
        .code,
    ).toBe(0);
    expect(readFileSync(at('again.csv'), 'utf8')).toBe(readFileSync(at('first.csv'), 'utf8'));
  });
});

/** The rows of a CSV output, header aside. */
const records = (text: string) => text.trimEnd().split('\n').slice(1);
const statuses = (text: string) => records(text).map((line) => line.split(',')[4]);

describe('a rerun continues', () => {
  // 40 rows, 10 of them repeats of earlier ones: a repeat must never be bought again either.
  const repeating = (i: number) => `${i % 4 === 3 ? i - 3 : i} Main St,21201,m${i}`;

  it('after a budget stop, the same command run again until it completes buys every section once and writes the whole output', async () => {
    const env = await sandbox.start();
    const { input, store, at } = workspace(40, repeating);
    const command = ['property', 'value', '-i', input, '-o', at('values.csv'), '--store', store, '--batch-size', '5', '--max-cost', '2'];
    const codes: number[] = [];
    for (let night = 0; night < 10; night++) {
      const result = await run(env, command);
      codes.push(result.code);
      if (result.code === 0) break;
    }
    expect(codes.at(-1)).toBe(0);
    expect(codes.slice(0, -1).every((code) => code === 4)).toBe(true);
    expect(sandbox.current.usage().chargedAgain).toEqual({ sections: 0, usd: 0 });
    expect(sandbox.current.usage().components).toBe(30);
    const whole = await run(env, ['property', 'value', '-i', input, '-o', at('whole.csv'), '--no-store']);
    expect(whole.code).toBe(0);
    expect(readFileSync(at('values.csv'), 'utf8')).toBe(readFileSync(at('whole.csv'), 'utf8'));
  });

  it('after Ctrl-C, the output ends before the first row not sent (no row written as an error), and the rerun takes the rest from the store', async () => {
    const env = await sandbox.start({ latencyMs: [5, 30] });
    const { input, store } = workspace(200, repeating);
    const command = ['property', 'value', '-i', input, '--store', store, '--batch-size', '10', '--concurrency', '4'];
    const stop = new AbortController();
    const stopped = await runMain(command, {
      env,
      signal: stop.signal,
      watch: ({ stdout }) => {
        if (!stop.signal.aborted && records(stdout).length >= 40) stop.abort(new Error('stopped by Ctrl-C (SIGINT)'));
      },
    });
    expect(stopped.code).toBe(130);
    expect(new Set(statuses(stopped.stdout))).toEqual(new Set(['ok', 'no_content']));
    expect(stopped.stderr).toMatch(/rows from \d+ on are not in the output yet: what was answered of them is kept in the store/);
    expect(stopped.stderr).toMatch(/run the same command again to complete it/);
    const rerun = await runMain([...command, '-q'], { env });
    expect(rerun.code).toBe(0);
    expect(records(rerun.stdout)).toHaveLength(200);
    expect(sandbox.current.usage().chargedAgain).toEqual({ sections: 0, usd: 0 });
  });

  it('without a store, rows never sent before a stop are not_sent, never error, and said apart in the summary', async () => {
    const env = await sandbox.start({ latencyMs: [5, 30] });
    const { input } = workspace(200);
    const stop = new AbortController();
    const stopped = await runMain(['property', 'value', '-i', input, '--no-store', '--batch-size', '10', '--concurrency', '4'], {
      env,
      signal: stop.signal,
      watch: ({ stdout }) => {
        if (!stop.signal.aborted && records(stdout).length >= 20) stop.abort(new Error('stopped by Ctrl-C (SIGINT)'));
      },
    });
    expect(stopped.code).toBe(130);
    expect(statuses(stopped.stdout)).not.toContain('error');
    const unsent = statuses(stopped.stdout).filter((status) => status === 'not_sent').length;
    if (unsent > 0) expect(stopped.stderr).toContain(`${unsent} rows not sent before the stop (written as not_sent; a rerun sends them)`);
  });
});

describe('jobs at the same time on one store', () => {
  it('buy an item they share once: the second waits for the first one’s answer', async () => {
    const env = await sandbox.start({ latencyMs: [20, 60] });
    const dir = mkdtempSync(join(tmpdir(), 'propdata-together-'));
    const store = join(dir, 'propdata.db');
    // Four inputs of 40 rows; rows 1-20 of each are the same 20 homes.
    const inputs = [0, 1, 2, 3].map((job) => {
      const input = join(dir, `job${job}.csv`);
      const lines = Array.from({ length: 40 }, (_, i) => (i < 20 ? `${i + 1} Shared St,21201` : `${i + 1} Job${job} St,21201`));
      writeFileSync(input, `address,zipcode\n${lines.join('\n')}\n`);
      return input;
    });
    const results = await Promise.all(
      inputs.map((input, job) =>
        run(env, ['property', 'value', '-i', input, '-o', join(dir, `out${job}.csv`), '--store', store, '--batch-size', '5']),
      ),
    );
    expect(results.map((result) => result.code)).toEqual([0, 0, 0, 0]);
    expect(sandbox.current.usage().components).toBe(20 + 4 * 20);
    expect(sandbox.current.usage().chargedAgain).toEqual({ sections: 0, usd: 0 });
    for (const job of [1, 2, 3]) {
      const shared = (path: string) => records(readFileSync(path, 'utf8')).slice(0, 20).join('\n');
      expect(shared(join(dir, `out${job}.csv`))).toBe(shared(join(dir, 'out0.csv')));
    }
  });
});

describe('what a run says of itself', () => {
  it('counts as saved only what would have been billed: no 204, no repeat within the file', async () => {
    const env = await sandbox.start();
    // Rows 1 and 3 are one home; NOMATCH never resolves (204, never billed).
    const { input, store, at } = workspace(
      4,
      (i) => [`2 Main St,21201,a`, `3 NOMATCH Rd,21201,b`, `2 Main St,21201,c`, `4 Main St,21201,d`][i]!,
    );
    expect((await run(env, ['property', 'value', '-i', input, '-o', at('a.csv'), '--store', store])).code).toBe(0);
    const again = await runMain(
      ['property', 'value', '-i', input, '-o', at('b.csv'), '--store', store, '--max-age', '1d', '--report', at('r.json')],
      { env },
    );
    expect(again.code).toBe(0);
    // Two distinct homes billed once each at 0.25, and a 204 that cost nothing; the repeat is deduplication's.
    expect(JSON.parse(readFileSync(at('r.json'), 'utf8'))).toMatchObject({ fromStore: 3, savedByStore: 0.5, requests: 0 });
    expect(again.stderr).toMatch(/the store answered 3 rows whole: 0\.50 USD at list price not bought again/);
  });

  it('after --resume, describes the whole file, and beside it what this run wrote', async () => {
    const env = await sandbox.start();
    const { input, store, at } = workspace(30);
    const command = ['property', 'value', '-i', input, '-o', at('values.csv'), '--store', store, '--batch-size', '5'];
    expect((await runMain([...command, '--max-components', '12'], { env })).code).toBe(4);
    const resumed = await runMain([...command, '--resume', '--report', at('r.json')], { env });
    expect(resumed.code).toBe(0);
    const report = JSON.parse(readFileSync(at('r.json'), 'utf8')) as {
      records: Record<string, number>;
      recordsThisRun: Record<string, number>;
    };
    const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);
    expect(total(report.records)).toBe(30);
    expect(total(report.recordsThisRun)).toBeLessThan(30);
    expect(resumed.stderr).toMatch(/propdata: completed: .*values\.csv holds \d+ ok(, \d+ no_content)?\n {2}this run wrote /);
  });

  it('stops at once, with one message and exit 1, when no request ever reaches the service', async () => {
    const { input, at } = workspace(30);
    const result = await runMain(
      [
        'property',
        'value',
        '-i',
        input,
        '-o',
        at('values.csv'),
        '--base-url',
        'http://127.0.0.1:9',
        '--key',
        'k',
        '--secret',
        's',
        '--max-retries',
        '1',
      ],
      { clock: new FakeClock(Date.now()) },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stopped: could not reach the service: .*(refused|ECONNREFUSED)/i);
    expect(readFileSync(at('values.csv'), 'utf8')).not.toMatch(/,error,/);
  });

  it('says when a dry run would pass a cap', async () => {
    const { input } = workspace(30);
    const dry = await runMain(['property', 'value', '-i', input, '--dry-run', '--max-cost', '2', '--max-components', '20', '--no-store']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/over a cap:\s+--max-cost 2 USD: the run would stop there, before 7\.50 USD/);
    expect(dry.stdout).toMatch(/over a cap:\s+--max-components 20: the run would stop there, at 20 of 30 components/);
  });

  it('never waits on windows remembered from another sandbox: each one starts with its own', async () => {
    const { input, store } = workspace(12);
    const first = await runMain(['property', 'value', '-i', input, '--sandbox', '--sandbox-rate-limit', '12/60', '--store', store, '-q']);
    expect(first.code).toBe(0);
    const second = await runMain([
      'property',
      'value',
      '-i',
      input,
      '--sandbox',
      '--sandbox-rate-limit',
      'off',
      '--store',
      store,
      '--max-wait',
      '1s',
      '-q',
    ]);
    expect(second.code).toBe(0);
  });
});

describe('a service that echoes meta inside address_info', () => {
  const server = scriptedServerPerTest();

  it('gets each row its own meta back from the store, where the service put it, as deduplication does', async () => {
    // The meta sent is echoed in status.requested_item, as "the address parameters exactly as sent".
    const env = await server.serve((request) => {
      const items = JSON.parse(request.body) as { address: string; zipcode: string; meta?: string }[];
      const chunks = items.map((item) => ({
        address_info: { address: item.address, status: { match: true, requested_item: item } },
        'property/value': { api_code: 0, api_code_description: 'ok', result: { value: { price_mean: 100 } } },
      }));
      return { status: 200, body: JSON.stringify(chunks) };
    });
    const { input, store, at } = workspace(
      4,
      (i) => [`5 Echo St,21201,m1`, `6 Echo St,21201,m2`, `5 Echo St,21201,m3`, `5 Echo St,21201,m4`][i]!,
    );
    expect((await run(env, ['property', 'value', '-i', input, '-o', at('first.jsonl'), '--store', store])).code).toBe(0);
    expect(
      (await run(env, ['property', 'value', '-i', input, '-o', at('again.jsonl'), '--store', store, '--max-age', '1d', '--no-dedupe']))
        .code,
    ).toBe(0);
    const metaOf = (path: string) =>
      readFileSync(path, 'utf8')
        .trimEnd()
        .split('\n')
        .map(
          (line) =>
            (JSON.parse(line) as { address_info: { status: { requested_item: { meta: string } } } }).address_info.status.requested_item
              .meta,
        );
    expect(metaOf(at('again.jsonl'))).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(readFileSync(at('again.jsonl'), 'utf8')).toBe(readFileSync(at('first.jsonl'), 'utf8'));
  });
});
