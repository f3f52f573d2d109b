import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
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
    expect(JSON.parse(readFileSync(at('r.json'), 'utf8'))).toMatchObject({ componentsUsed: 30 });
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
