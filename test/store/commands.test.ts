import { mkdtempSync, writeFileSync } from 'node:fs';
import Sqlite from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveRunDefaults } from '../../src/cli/run-defaults.js';
import { openConfigStore } from '../../src/config/store.js';
import { targetForList } from '../../src/model/query-target.js';
import { itemRefOf } from '../../src/model/section-refs.js';
import { accountId, openStore, SANDBOX_ACCOUNT } from '../../src/store/index.js';
import { runMain } from '../helpers/run-main.js';
import { answerOf, home, request, section } from './contract/fixtures.js';

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

  /** Per account: 3 answers bought 100 days ago (run r0), 1 now (r1); and 4 rows LIVE answered from the store (r2). */
  async function fill(): Promise<void> {
    const now = Date.now();
    const store = await openStore(path);
    for (const [account, endpoint] of [
      [LIVE, 'property/value'],
      [SANDBOX_ACCOUNT, 'property/flood'],
    ] as const) {
      const answers = (addresses: string[]) =>
        addresses.map((address) => answerOf(itemRefOf(targetForList(endpoint), home(address)), [section(1)]));
      const bought = (at: number, run: string, addresses: string[]) => ({
        request: request(at, run, {
          account,
          endpoint,
          items: addresses.length,
          components: addresses.length,
          billed: addresses.length,
          cost: addresses.length / 4,
        }),
        windows: [],
        answers: answers(addresses),
        arrivedAt: at,
      });
      await store.record(bought(now - 100 * DAY, 'r0', ['0 Main St', '1 Main St', '2 Main St']));
      await store.record(bought(now, 'r1', ['9 New Rd']));
    }
    await store.recordReuse({ at: now, run: 'r2', account: LIVE, endpoint: 'property/value', rows: 4, saved: 1 });
    await store.close();
  }

  it('usage: the current account’s totals and rows, as JSON or a table', async () => {
    await fill();
    const json = await runMain(['usage', '--by', 'run', '--json', ...CREDENTIALS], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      total: { requests: 2, components: 4, billed: 4, cost: 1, fromStore: 4, saved: 1 },
      rows: [
        { run: 'r0', requests: 1, components: 3, billed: 3, cost: 0.75, fromStore: 0, saved: 0 },
        { run: 'r1', requests: 1, components: 1, billed: 1, cost: 0.25, fromStore: 0, saved: 0 },
        { run: 'r2', requests: 0, components: 0, billed: 0, cost: 0, fromStore: 4, saved: 1 },
      ],
    });
    const all = JSON.parse((await runMain(['usage', '--all-accounts', '--json'], { env })).stdout) as { total: { requests: number } };
    expect(all.total.requests).toBe(4);
    const table = await runMain(['usage', '--since', '30d', '--by', 'endpoint', '--sandbox'], { env });
    expect(table.stdout).toMatch(/^ENDPOINT\s+REQUESTS\s+COMPONENTS\s+BILLED\s+COST USD\s+FROM STORE\s+SAVED USD$/m);
    expect(table.stdout).toMatch(/^property\/flood\s+1\s+1\s+1\s+0\.25\s+0\s+0\.00$/m);
    expect(table.stdout).toMatch(/^TOTAL\s+1\s+1\s+1\s+0\.25\s+0\s+0\.00$/m);
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

  it('usage: bad flags are usage errors', async () => {
    expect((await runMain(['usage', '--since', 'last week', '--sandbox'], { env })).code).toBe(2);
    expect((await runMain(['usage', '--by', 'year', '--sandbox'], { env })).code).toBe(2);
  });

  it('usage and store info need no credentials: every account, or the one --account names', async () => {
    await fill();
    const everyone = await runMain(['usage', '--json'], { env });
    expect(everyone.code).toBe(0);
    expect(JSON.parse(everyone.stdout)).toMatchObject({ total: { requests: 4, components: 8, fromStore: 4 } });
    expect((await runMain(['usage'], { env })).stdout).toMatch(/\nevery account\n$/);
    const sandboxOnly = await runMain(['usage', '--account', SANDBOX_ACCOUNT, '--json'], { env });
    expect(JSON.parse(sandboxOnly.stdout)).toMatchObject({ total: { requests: 2, components: 4, fromStore: 0 } });

    const info = await runMain(['store', 'info', '--account', LIVE], { env });
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/^requests {2}2 recorded/m);
    expect(info.stdout).toContain(LIVE);
    expect(info.stdout).not.toContain(SANDBOX_ACCOUNT);

    // A mistyped account would report nothing as if nothing were spent: it is named, with the ones there are.
    for (const argv of [
      ['usage', '--account', 'sandbox'],
      ['store', 'info', '--account', 'sandbox'],
    ]) {
      const unknown = await runMain(argv, { env });
      expect(unknown.code, argv.join(' ')).toBe(2);
      expect(unknown.stderr).toContain(`holds no account "sandbox"; its accounts: "${LIVE}", "${SANDBOX_ACCOUNT}"`);
    }
  });

  it('store info, prune and clear', async () => {
    await fill();
    const info = await runMain(['store', 'info'], { env });
    expect(info.code).toBe(0);
    expect(info.stdout).toContain(`store     ${path}`);
    // Each account a heading, its answers by endpoint below it.
    expect(info.stdout).toMatch(
      new RegExp(`^account ${LIVE.replace(/[./]/g, '\\$&')}\n {2}ENDPOINT .*\n {2}v2/property/value\\s+4\\s`, 'm'),
    );
    expect(info.stdout).toMatch(/^account sandbox \(built in\)\n {2}ENDPOINT .*\n {2}v2\/property\/flood\s+4\s/m);
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
    expect(JSON.parse((await runMain(['usage', '--all-accounts', '--json'], { env })).stdout)).toMatchObject({ total: { requests: 4 } });
  });

  it('store info survives times damaged by hand: they are left out of oldest and newest, and counted', async () => {
    await fill();
    const db = new Sqlite(path);
    // A column's type does not bind in SQLite: text, and a number no Date can hold, go in as they are.
    const sandboxSections = `item IN (SELECT i.id FROM items i JOIN accounts a ON a.id = i.account WHERE a.name = '${SANDBOX_ACCOUNT}')`;
    db.prepare(`UPDATE sections SET at = 'yesterday' WHERE ${sandboxSections}`).run();
    const live = db.prepare(`SELECT item FROM sections WHERE NOT ${sandboxSections} ORDER BY at`).pluck().all() as number[];
    db.prepare('UPDATE sections SET at = ? WHERE item = ?').run('2026-01-01', live[0]);
    db.prepare('UPDATE sections SET at = ? WHERE item = ?').run(9_000_000_000_000_000n, live[1]);
    db.prepare("UPDATE items SET at = 'last week'").run();
    db.close();
    const info = await runMain(['store', 'info'], { env });
    expect(info.stderr).toBe('');
    expect(info.code).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    // The live account's two readable answers: one of 100 days ago, one of now.
    expect(info.stdout).toMatch(
      new RegExp(`\n {2}v2/property/value\\s+4\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+${today} \\d\\d:\\d\\d\n`),
    );
    expect(info.stdout).not.toContain('2026-01-01');
    expect(info.stdout).toMatch(/\n {2}v2\/property\/flood\s+4\s+unreadable\s+unreadable\n/);
    expect(info.stdout).toMatch(
      /\nnote: 6 answers have an unreadable time \(not a moment in milliseconds\): left out of OLDEST and NEWEST\n$/,
    );
    // --verbose, which an unexpected error's line suggests, is taken here too.
    const verbose = await runMain(['store', 'info', '--verbose'], { env });
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toBe(info.stdout);
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
