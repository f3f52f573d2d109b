import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveRunDefaults } from '../../src/cli/run-defaults.js';
import { openConfigStore } from '../../src/config/store.js';
import { accountId, openStore, SANDBOX_ACCOUNT } from '../../src/store/index.js';
import { runMain } from '../helpers/run-main.js';
import { itemKey, propertyChunk } from './helpers/chunks.js';

const CREDENTIALS = ['--key', 'live-key', '--secret', 'live-secret', '--base-url', 'https://api.example.com'];
const LIVE = accountId(new URL('https://api.example.com'), 'live-key');
const DAY = 86_400_000;

describe('propdata usage and propdata store', () => {
  let env: Record<string, string>;
  let path: string;

  beforeEach(() => {
    const home = mkdtempSync(join(tmpdir(), 'propdata-home-'));
    env = { PROPDATA_HOME: home, PROPDATA_CONFIG_DIR: join(home, 'config') };
    path = join(home, 'propdata.db');
  });

  async function fill(): Promise<void> {
    const store = await openStore(path);
    const now = Date.now();
    for (const [account, endpoint] of [
      [LIVE, 'property/value'],
      [SANDBOX_ACCOUNT, 'property/flood'],
    ] as const) {
      store.transaction(() => {
        for (let i = 0; i < 3; i += 1)
          store.answers(account).put(itemKey(`${i} Main St`), [endpoint], propertyChunk(`${i} Main St`, [endpoint]), now - 100 * DAY);
        store.answers(account).put(itemKey('9 New Rd'), [endpoint], propertyChunk('9 New Rd', [endpoint]), now);
        store.recordRequest({ at: now, run: 'r1', account, endpoint, items: 4, components: 4, status: 200, billed: 4, cost: 1 });
      });
    }
    store.recordFromStore({ at: now, run: 'r2', account: LIVE, endpoint: 'property/value', rows: 4, saved: 1 });
    store.close();
  }

  it('usage: the current account’s totals and rows, as JSON or a table', async () => {
    await fill();
    const json = await runMain(['usage', '--by', 'run', '--json', ...CREDENTIALS], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      total: { requests: 1, components: 4, billed: 4, cost: 1, fromStore: 4, saved: 1 },
      rows: [
        { run: 'r1', requests: 1, components: 4, billed: 4, cost: 1, fromStore: 0, saved: 0 },
        { run: 'r2', requests: 0, components: 0, billed: 0, cost: 0, fromStore: 4, saved: 1 },
      ],
    });
    const all = JSON.parse((await runMain(['usage', '--all-accounts', '--json'], { env })).stdout) as { total: { requests: number } };
    expect(all.total.requests).toBe(2);
    const table = await runMain(['usage', '--since', '30d', '--by', 'endpoint', '--sandbox'], { env });
    expect(table.stdout).toMatch(/^ENDPOINT\s+REQUESTS\s+COMPONENTS\s+BILLED\s+COST USD\s+FROM STORE\s+SAVED USD$/m);
    expect(table.stdout).toMatch(/^property\/flood\s+1\s+4\s+4\s+1\.00\s+0\s+0\.00$/m);
    expect(table.stdout).toMatch(/^TOTAL\s+1\s+4\s+4\s+1\.00\s+0\s+0\.00$/m);
    expect(table.stdout).toContain(`account ${SANDBOX_ACCOUNT}`);
  });

  it('usage: nothing recorded without a store, and none is created', async () => {
    const result = await runMain(['usage', '--json', '--sandbox'], { env });
    expect(JSON.parse(result.stdout)).toEqual({
      total: { requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 },
      rows: [],
    });
    expect((await runMain(['usage', '--sandbox'], { env })).stdout).toContain(`nothing recorded yet: no store at ${path}`);
    expect((await runMain(['store', 'info'], { env })).stdout).toContain('not created yet');
  });

  it('usage: bad flags and missing credentials are usage errors', async () => {
    expect((await runMain(['usage', '--since', 'last week', '--sandbox'], { env })).code).toBe(2);
    expect((await runMain(['usage', '--by', 'year', '--sandbox'], { env })).code).toBe(2);
    const anonymous = await runMain(['usage'], { env });
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toMatch(/no base URL, API key, API secret configured/);
  });

  it('store info, prune and clear', async () => {
    await fill();
    const info = await runMain(['store', 'info'], { env });
    expect(info.code).toBe(0);
    expect(info.stdout).toContain(`store     ${path}`);
    // Each account a heading, its answers by endpoint below it.
    expect(info.stdout).toMatch(new RegExp(`^account ${LIVE.replace(/[./]/g, '\\$&')}\n {2}ENDPOINT .*\n {2}property/value\\s+4\\s`, 'm'));
    expect(info.stdout).toMatch(/^account sandbox \(built in\)\n {2}ENDPOINT .*\n {2}property\/flood\s+4\s/m);
    const narrow = await runMain(['store', 'info'], { env, tty: true, columns: 80 });
    expect(narrow.stdout.split('\n').filter((line) => !line.startsWith('store ') && line.length >= 80)).toEqual([]);
    expect((await runMain(['store', 'prune'], { env })).code).toBe(2);
    const pruned = await runMain(['store', 'prune', '--older-than', '90d'], { env });
    expect(pruned.stdout).toMatch(/^removed 6 answers that arrived before \d{4}-\d\d-\d\d \d\d:\d\d UTC; the store is [\d.]+ kB$/m);
    expect((await runMain(['store', 'clear', '--sandbox'], { env })).stdout).toBe(
      `removed 1 answers of ${SANDBOX_ACCOUNT}; spend records are kept\n`,
    );
    expect((await runMain(['store', 'clear', '--all-accounts'], { env })).stdout).toBe(
      'removed 1 answers of every account; spend records are kept\n',
    );
    expect((await runMain(['store', 'info'], { env })).stdout).toContain('no answers stored');
    expect(JSON.parse((await runMain(['usage', '--all-accounts', '--json'], { env })).stdout)).toMatchObject({ total: { requests: 2 } });
  });

  it('a store that cannot be opened is one line naming --no-store, exit 1', async () => {
    writeFileSync(path, 'this is not a database, whatever its name says. '.repeat(200));
    for (const argv of [
      ['usage', '--sandbox'],
      ['store', 'info'],
      ['store', 'clear', '--all-accounts'],
    ]) {
      const result = await runMain(argv, { env });
      expect(result.code, argv.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/^propdata: cannot use the store .*: it is damaged or not a propdata store .*--no-store\n$/);
    }
  });

  it('config set max-age and max-cost-month: checked like their flags, used when the flag is absent', async () => {
    expect((await runMain(['config', 'set', 'max-age', '30d'], { env })).code).toBe(0);
    expect((await runMain(['config', 'set', 'max-cost-month', '150'], { env })).code).toBe(0);
    const bad = await runMain(['config', 'set', 'max-age', 'a month'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^propdata: config set: max-age: expected a duration/);
    expect((await runMain(['config', 'set', 'max-cost-month', '-5'], { env })).code).toBe(2);
    expect((await runMain(['config', 'list'], { env })).stdout).toContain('max-age=30d\nmax-cost-month=150\n');
    const config = () => Promise.resolve(openConfigStore(env));
    expect(await resolveRunDefaults({}, config)).toEqual({ maxAgeMs: 30 * DAY, maxCostMonth: 150 });
    expect(await resolveRunDefaults({ maxAge: 1000 }, config)).toEqual({ maxAgeMs: 1000, maxCostMonth: 150 });
  });
});
