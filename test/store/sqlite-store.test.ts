import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/errors/index.js';
import { itemRefOf } from '../../src/model/section-refs.js';
import { accountId, openStore } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/sqlite/schema.js';
import { A, answerOf, entryOf, home, section, VALUE, VALUE_AND_RENTAL } from './contract/fixtures.js';
import { tempStorePath } from './helpers/temp-store.js';

/** A new store file at `path` with the first `version` migrations applied, as a release of that schema left it; still open. */
function fileAtSchema(path: string, version: number): Sqlite.Database {
  mkdirSync(dirname(path), { recursive: true });
  const old = new Sqlite(path);
  old.pragma('journal_mode = WAL');
  for (const migration of MIGRATIONS.slice(0, version)) old.exec(migration);
  old.pragma(`user_version = ${version}`);
  return old;
}

/** What only the SQLite file shows: its transactions, its bytes on disk, its schema's history, a damaged file. */
describe('the SQLite store', () => {
  const HOUR = 3_600_000;

  it('reads a kept section whose time is text (written over it) as damaged, never as fresh forever', async () => {
    const path = tempStorePath();
    const store = await openStore(path);
    const ref = itemRefOf(VALUE, home('405 Dyer Ave'));
    await store.record(entryOf([answerOf(ref, [section(1)])]));
    const other = new Sqlite(path);
    // SQLite compares text above every number: `'yesterday' >= freshFrom` holds.
    other.exec("UPDATE sections SET at = 'yesterday'");
    other.close();
    expect((await store.find(A, [ref], { maxAgeMs: HOUR }))[0]).toMatchObject({ sections: [undefined], damaged: 1 });
    expect(await store.claim(A, 'run-1', [{ item: ref.item, ...ref.sections[0]! }], { maxAgeMs: HOUR }, HOUR)).toEqual(['claimed']);
    // Bought again, it replaces the damaged one.
    await store.record(entryOf([answerOf(ref, [section(2)])]));
    expect((await store.find(A, [ref], { maxAgeMs: HOUR }))[0]).toMatchObject({ sections: [{ body: section(2) }], damaged: 0 });
    await store.close();
  });

  it('writes a response’s answers, spend and windows in one transaction, or none of them', async () => {
    const path = tempStorePath();
    const store = await openStore(path);
    const ref = itemRefOf(VALUE, home('405 Dyer Ave'));
    const windows = [{ periodSeconds: 60, limit: 250, remaining: 200, resetAt: Date.now() + 30_000 }];
    const other = new Sqlite(path);
    // The last statement of the transaction fails: what came before it must not stay.
    other.exec("CREATE TRIGGER refuse BEFORE INSERT ON requests BEGIN SELECT RAISE(ABORT, 'no room for requests'); END");
    const failed = await store.record(entryOf([answerOf(ref, [section(1)])], { windows })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(StoreError);
    expect((failed as Error).message).toMatch(/^cannot use the store .*: no room for requests; run with --no-store to go without it$/);
    expect((await store.find(A, [ref], { maxAgeMs: HOUR }))[0]!.sections).toEqual([undefined]);
    expect(await store.loadWindows(A)).toBeUndefined();
    other.exec('DROP TRIGGER refuse');
    other.close();
    // The account numbered in the transaction undone is numbered again.
    await store.record(entryOf([answerOf(ref, [section(2)])], { windows }));
    expect(await store.accounts()).toEqual([A]);
    expect((await store.info()).answers).toMatchObject([{ account: A, endpoint: 'v2/property/value', answers: 1 }]);
    await store.close();
  });

  it('holds neither the key nor the secret anywhere in its files', async () => {
    const key = 'live-key-Q7ZX9WV2';
    const secret = 'secret-8HF3KD0PLM';
    const path = tempStorePath();
    const store = await openStore(path);
    const account = accountId(new URL('https://api.example.com'), key);
    await store.record(
      entryOf([answerOf(itemRefOf(VALUE_AND_RENTAL, home('405 Dyer Ave')), [section(1), section(2)])], {
        account,
        windows: [{ periodSeconds: 60, limit: 250, remaining: 248, resetAt: Date.now() + 30_000 }],
      }),
    );
    await store.claim(account, 'run-1', [{ item: 'x', endpoint: 'v2/property/value', params: '' }], {}, HOUR);
    await store.beginJob(account, 'nightly');
    // Open, with a write-ahead log, and closed, folded into the file.
    const files = () => readdirSync(dirname(path)).map((name) => readFileSync(join(dirname(path), name)));
    for (const bytes of files()) for (const text of [key, secret]) expect(bytes.includes(text)).toBe(false);
    await store.close();
    for (const bytes of files()) for (const text of [key, secret]) expect(bytes.includes(text)).toBe(false);
  });

  it('gives the room back to the file system when answers are removed', async () => {
    const store = await openStore(tempStorePath());
    for (let batch = 0; batch < 30; batch += 1) {
      const answers = Array.from({ length: 100 }, (_, i) => {
        const ref = itemRefOf(VALUE_AND_RENTAL, home(`${batch * 100 + i} Main St`));
        return answerOf(ref, [section(i), section(i)]);
      });
      await store.record(entryOf(answers));
    }
    const full = (await store.info()).bytes;
    expect(await store.clear({ allAccounts: true })).toBe(6000);
    expect((await store.info()).bytes).toBeLessThan(full / 4);
    await store.close();
  });

  it('opens a store of schema 2 at the current schema: its answers dropped (they cannot be filed by item), spend and windows kept', async () => {
    const path = tempStorePath();
    // A schema-2 file, as the last release left it.
    const old = fileAtSchema(path, 2);
    old.exec(`INSERT INTO accounts (id, name) VALUES (1, '${A}'); INSERT INTO endpoints (id, name) VALUES (1, 'property/value')`);
    old.prepare('INSERT INTO items (account, key, at, frame) VALUES (1, ?, ?, ?)').run(Buffer.alloc(16, 7), Date.now(), Buffer.of(1, 2));
    old.prepare('INSERT INTO sections (item, endpoint, at, body) VALUES (1, 1, ?, ?)').run(Date.now(), Buffer.of(1, 3));
    old
      .prepare(
        'INSERT INTO requests (at, run, account, endpoint, items, components, status, billed, cost) VALUES (?, ?, 1, ?, 1, 1, 200, 1, 250000)',
      )
      .run(Date.now(), 'r1', 'property/value');
    old
      .prepare('INSERT INTO windows (account, at, windows) VALUES (1, ?, ?)')
      .run(Date.now(), JSON.stringify([{ periodSeconds: 60, limit: 250, remaining: 10, resetAt: Date.now() + 30_000 }]));
    old.close();

    const store = await openStore(path);
    expect((await store.info()).answers).toEqual([]);
    expect((await store.usage({ by: 'run', account: A })).total).toMatchObject({ requests: 1, cost: 0.25 });
    expect((await store.loadWindows(A))?.[0]?.remaining).toBe(10);
    const ref = itemRefOf(VALUE, home('405 Dyer Ave'));
    await store.record(entryOf([answerOf(ref, [section(1)])]));
    expect((await store.find(A, [ref], { maxAgeMs: HOUR }))[0]!.sections[0]?.body).toEqual(section(1));
    await store.close();
  });

  it('stops with one line naming the newer schema when a newer propdata migrates the file under a running store', async () => {
    const path = tempStorePath();
    const store = await openStore(path);
    const ref = itemRefOf(VALUE, home('405 Dyer Ave'));
    const claims = [{ item: ref.item, ...ref.sections[0]! }];
    expect(await store.claim(A, 'job nightly', claims, {}, HOUR)).toEqual(['claimed']);
    // A newer propdata's first run on the same file: a column the running store's statements name is gone.
    const newer = new Sqlite(path);
    newer.exec('ALTER TABLE claims RENAME COLUMN expires TO lease_ends');
    newer.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    newer.close();
    const failure = await store.claim(A, 'job nightly', claims, {}, HOUR).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).message).toBe(
      `cannot use the store ${path}: a newer propdata changed it while this run used it (schema ${MIGRATIONS.length + 1}; this one knows up to ${MIGRATIONS.length}); upgrade propdata, or run with --no-store`,
    );
    await store.close();
  });

  it('opens a store of schema 3 at the current schema: its answers found by their key, its live claims kept, their owners numbered', async () => {
    const path = tempStorePath();
    // A schema-3 file, as the last release left it: an answer, and a live claim of a running job.
    const old = fileAtSchema(path, 3);
    const kept = itemRefOf(VALUE, home('405 Dyer Ave'));
    const claimed = itemRefOf(VALUE, home('407 Dyer Ave'));
    old.exec(`INSERT INTO accounts (id, name) VALUES (1, '${A}'); INSERT INTO endpoints (id, name) VALUES (1, 'v2/property/value')`);
    const frame = JSON.stringify(answerOf(kept, [section(1)]).frame);
    old.prepare('INSERT INTO items (id, account, identity, at, frame) VALUES (7, 1, ?, ?, ?)').run(kept.item, Date.now(), frame);
    old
      .prepare("INSERT INTO sections (item, endpoint, params, at, body) VALUES (7, 1, '', ?, ?)")
      .run(Date.now(), JSON.stringify(section(1)));
    old
      .prepare("INSERT INTO claims (account, identity, endpoint, params, owner, expires) VALUES (1, ?, 1, '', 'job nightly', ?)")
      .run(claimed.item, Date.now() + HOUR);
    old.close();

    const store = await openStore(path);
    expect((await store.find(A, [kept], { maxAgeMs: HOUR }))[0]!.sections[0]?.body).toEqual(section(1));
    const claims = [{ item: claimed.item, ...claimed.sections[0]! }];
    expect(await store.held(A, 'another run', claims)).toEqual([true]);
    expect(await store.claim(A, 'job nightly', claims, {}, HOUR)).toEqual(['claimed']);
    // A new answer for the item kept goes to its row, not to a second one.
    await store.record(entryOf([answerOf(kept, [section(2)])]));
    expect((await store.find(A, [kept], { maxAgeMs: HOUR }))[0]!.sections[0]?.body).toEqual(section(2));
    expect((await store.info()).answers).toMatchObject([{ answers: 1 }]);
    await store.close();
  });

  it('reads around pages it finds damaged: their sections are bought again, and the damage is said once', async () => {
    const path = tempStorePath();
    const refs = Array.from({ length: 2000 }, (_, i) => itemRefOf(VALUE, home(`${i} Main St`)));
    const filled = await openStore(path);
    for (let i = 0; i < refs.length; i += 100) {
      await filled.record(entryOf(refs.slice(i, i + 100).map((ref, j) => answerOf(ref, [section(i + j)]))));
    }
    await filled.close();
    const db = new Sqlite(path, { readonly: true });
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const leaves = db
      .prepare("SELECT pageno FROM dbstat WHERE name = 'sections' AND pagetype = 'leaf' ORDER BY pageno")
      .pluck()
      .all() as number[];
    db.close();
    const file = openSync(path, 'r+');
    writeSync(file, Buffer.alloc(pageSize, 0xff), 0, pageSize, (leaves[Math.floor(leaves.length / 2)]! - 1) * pageSize);
    closeSync(file);

    const store = await openStore(path);
    const found = await store.find(A, refs, { maxAgeMs: HOUR });
    const missing = found.filter((item) => item.sections[0] === undefined).length;
    expect(missing).toBeGreaterThan(0);
    expect(missing).toBeLessThan(refs.length);
    expect(store.problems().damaged).toBe(missing);
    expect(store.problems().notes).toEqual([
      expect.stringMatching(
        /^the store .* is damaged \(.*\): what it could not read was bought again; move it aside after this run, or run with --no-store$/,
      ),
    ]);
    await store.find(A, refs, { maxAgeMs: HOUR });
    expect(store.problems().notes).toHaveLength(1);
    await store.close();
  });
});
