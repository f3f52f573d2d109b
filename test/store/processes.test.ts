import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { request } from './contract/fixtures.js';
import { compileStore } from './helpers/compiled-store.js';
import { tempStorePath } from './helpers/temp-store.js';

const ACCOUNT = 'https://api.example.com key:aaaaaaaaaaaaaaaa';
const VALUE = { endpoint: 'v2/property/value', params: '' };
const FOREVER = { maxAgeMs: Number.MAX_SAFE_INTEGER };
const refOf = (item: string) => ({ item, sections: [VALUE] });

/**
 * A writer in its own process. `write NAME N`: says "ready" once the store is open, waits for a
 * line on stdin (so that two writers start together), then N responses recorded, each of 10
 * answers. `hang NAME N`: the N responses at once, then, on a connection of its own, a transaction
 * of 3,000 rows of 8 KiB (more than the 16 MB page cache, so much of it reaches the log) that never
 * commits: it says so and waits to be killed.
 */
const WRITER = `
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import Sqlite from 'better-sqlite3';
import { openSqliteStore as openStore } from './store/sqlite/open-sqlite-store.js';
const [path, mode, name, count] = process.argv.slice(2);
const account = ${JSON.stringify(ACCOUNT)};
const store = await openStore(path);
const answer = (item) => ({ item, frame: [['address_info', { address: item }], null], sections: [{ ref: ${JSON.stringify(VALUE)}, body: { api_code: 0, result: item } }] });
if (mode === 'write') {
  process.stdout.write('ready\\n');
  await once(process.stdin, 'data');
}
for (let i = 0; i < Number(count); i += 1) {
  const answers = Array.from({ length: 10 }, (_, j) => answer(name + '-' + i + '-' + j));
  // Time and run identify a request (it is recorded once): each of the run's has its own, in microseconds here.
  const request = { at: Date.now() * 1000 + i, run: name, account, endpoint: 'property/value', items: 10, components: 10, status: 200, billed: 10, cost: 2.5 };
  await store.record({ request, windows: [], answers });
  // A run writes once per response, not in a tight loop: this lets the other writer in.
  if (mode === 'write') await new Promise((resolve) => setTimeout(resolve, 1));
}
if (mode === 'hang') {
  const db = new Sqlite(path);
  db.exec('BEGIN IMMEDIATE');
  const insert = db.prepare("INSERT INTO requests (at, run, account, endpoint, items, components, status, billed, cost) VALUES (0, 'uncommitted', 1, ?, 1, 1, 200, 1, 0)");
  for (let j = 0; j < 3000; j += 1) insert.run(randomBytes(4096).toString('hex'));
  process.stdout.write('in transaction\\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000);
}
await store.close();
`;

let compiled: string;

function writer(path: string, mode: 'write' | 'hang', name: string, count: number): ChildProcess {
  return spawn(process.execPath, [join(compiled, 'writer.mjs'), path, mode, name, String(count)], { stdio: ['pipe', 'pipe', 'inherit'] });
}

async function said(child: ChildProcess): Promise<string> {
  const [data] = (await once(child.stdout!, 'data')) as [Buffer];
  return data.toString();
}

async function exited(child: ChildProcess): Promise<number | null> {
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

function integrity(path: string): string {
  const db = new Sqlite(path, { readonly: true });
  const result = db.pragma('integrity_check', { simple: true }) as string;
  db.close();
  return result;
}

describe('several processes on one store', () => {
  beforeAll(() => {
    compiled = compileStore();
    writeFileSync(join(compiled, 'writer.mjs'), WRITER);
  }, 60_000);

  it('two processes writing at once both keep everything', async () => {
    const path = tempStorePath();
    await (await openStore(path)).close();
    const [one, two] = [writer(path, 'write', 'one', 150), writer(path, 'write', 'two', 150)];
    expect(await Promise.all([said(one), said(two)])).toEqual(['ready\n', 'ready\n']);
    for (const child of [one, two]) child.stdin!.end('go\n');
    expect(await Promise.all([exited(one), exited(two)])).toEqual([0, 0]);
    expect(integrity(path)).toBe('ok');
    // They did write at the same time: each one's requests span the other's.
    const db = new Sqlite(path, { readonly: true });
    const spans = db.prepare('SELECT MIN(at) / 1000 AS first, MAX(at) / 1000 AS last FROM requests GROUP BY run ORDER BY run').all() as {
      first: number;
      last: number;
    }[];
    db.close();
    expect(spans[0]!.first).toBeLessThan(spans[1]!.last);
    expect(spans[1]!.first).toBeLessThan(spans[0]!.last);
    const store = await openStore(path);
    const usage = await store.usage({ by: 'run', account: ACCOUNT });
    expect(usage.rows.map((row) => [row.key, row.requests])).toEqual(
      expect.arrayContaining([
        ['one', 150],
        ['two', 150],
      ]),
    );
    const refs = ['one', 'two'].flatMap((name) => Array.from({ length: 1500 }, (_, k) => refOf(`${name}-${Math.floor(k / 10)}-${k % 10}`)));
    const found = await store.find(ACCOUNT, refs, FOREVER);
    expect(found.filter((item) => item.sections[0] !== undefined)).toHaveLength(3000);
    await store.close();
  }, 60_000);

  it('a writer killed mid-transaction leaves a usable store with every commit', async () => {
    const path = tempStorePath();
    const child = writer(path, 'hang', 'killed', 20);
    expect(await said(child)).toBe('in transaction\n');
    child.kill('SIGKILL');
    expect(await exited(child)).toBeNull();
    // Part of the open transaction reached the log (the commits take a megabyte): the crash has something to discard.
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(10_000_000);
    const store = await openStore(path);
    expect((await store.find(ACCOUNT, [refOf('killed-19-9')], FOREVER))[0]!.sections[0]).toBeDefined();
    expect((await store.usage({ by: 'run' })).rows.map((row) => [row.key, row.requests])).toEqual([['killed', 20]]);
    const after = { item: 'after', frame: [null], sections: [{ ref: VALUE, body: { api_code: 0, result: 1 } }] };
    await store.record({ request: { ...request(Date.now(), 'after'), account: ACCOUNT }, windows: [], answers: [after] });
    expect((await store.find(ACCOUNT, [refOf('after')], FOREVER))[0]!.sections[0]?.body).toEqual({ api_code: 0, result: 1 });
    await store.close();
    expect(integrity(path)).toBe('ok');
  }, 60_000);
});
