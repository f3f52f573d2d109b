import { createHash, randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import { describe, expect, it } from 'vitest';
import { openExistingStore, openStore } from '../../src/store/index.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { databasePerFile, freshSchema, postgresPassword } from '../helpers/postgres.js';
import { runMain } from '../helpers/run-main.js';
import { itemRefOf } from '../../src/model/section-refs.js';
import { identityKey } from '../../src/store/identity-key.js';
import { A, answerOf, claimsOf, entryOf, frameOf, home, section, VALUE } from './contract/fixtures.js';

/** Setting up a store in a PostgreSQL database: its schema, its version, and what the database user needs. */
const database = databasePerFile();

const HOUR = 3_600_000;

/** A new store in the database at `url` with the first `version` migrations applied, as a release of that schema left it: its schema's name. */
async function storeAtSchema(url: string, version: number): Promise<string> {
  const schema = new URL(url).searchParams.get('schema')!;
  await database.admin.query(`CREATE SCHEMA ${schema}`);
  for (const migration of MIGRATIONS.slice(0, version)) {
    if (typeof migration === 'function') await database.admin.query(migration(schema));
    else await migration.run(database.admin as unknown as PoolClient, schema);
  }
  await database.admin.query(`CREATE TABLE ${schema}.schema_version (version integer NOT NULL)`);
  await database.admin.query(`INSERT INTO ${schema}.schema_version (version) VALUES (${version})`);
  return schema;
}

/** The database's URL as another user, `role` (made for the test, with `password`). */
function as(role: string, password: string, url: string): string {
  const other = new URL(url);
  other.username = role;
  other.password = password;
  return other.toString();
}

describe('a store in a PostgreSQL database', () => {
  it('is not made by commands that only read or remove (store info says so), and is made once by jobs opening it together', async () => {
    const url = freshSchema(database.url);
    expect(await openExistingStore(url, { readonly: true })).toBeUndefined();
    const info = await runMain(['store', 'info', '--store', url]);
    const usage = await runMain(['usage', '--store', url, '--all-accounts']);
    const location = url.replace(`:${postgresPassword()}@`, '@');
    expect(info.stdout).toBe(`store     ${location}\nnot created yet: a run that uses it creates it\n`);
    expect(usage.stdout).toContain(`nothing recorded yet: no store at ${location}`);
    expect(info.stdout + info.stderr + usage.stdout + usage.stderr).not.toContain(postgresPassword());
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(url)));
    await Promise.all(stores.map((store) => store.close()));
    const schema = new URL(url).searchParams.get('schema')!;
    const { rows } = await database.admin.query(`SELECT version FROM ${schema}.schema_version`);
    expect(rows).toEqual([{ version: SCHEMA_VERSION }]);
    const existing = await openExistingStore(url, { readonly: true });
    expect(existing?.location).toBe(location);
    await existing?.close();
  });

  it('refuses a store set up by a newer propdata, naming both versions', async () => {
    const url = freshSchema(database.url);
    await (await openStore(url)).close();
    const schema = new URL(url).searchParams.get('schema')!;
    await database.admin.query(`UPDATE ${schema}.schema_version SET version = 99`);
    await expect(openStore(url)).rejects.toThrow(
      new RegExp(
        `a newer propdata set it up \\(schema 99; this one knows up to ${SCHEMA_VERSION}\\); upgrade propdata, or run with --no-store`,
      ),
    );
  });

  it('stops a run with one line naming both versions when a newer propdata migrates the schema under it', async () => {
    const url = freshSchema(database.url);
    const store = await openStore(url);
    const ref = itemRefOf(VALUE, home('405 Dyer Ave'));
    const claims = [{ item: ref.item, ...ref.sections[0]! }];
    expect(await store.claim(A, 'job nightly', claims, {}, 3_600_000)).toEqual(['claimed']);
    // A newer propdata's first run, on another machine: a column this run's statements name is gone.
    const schema = new URL(url).searchParams.get('schema')!;
    await database.admin.query(`ALTER TABLE ${schema}.claims RENAME COLUMN expires TO lease_ends`);
    await database.admin.query(`UPDATE ${schema}.schema_version SET version = ${SCHEMA_VERSION + 1}`);
    await expect(store.claim(A, 'job nightly', claims, {}, 3_600_000)).rejects.toThrow(
      `a newer propdata changed it while this run used it (schema ${SCHEMA_VERSION + 1}; this one knows up to ${SCHEMA_VERSION}); upgrade propdata, or run with --no-store`,
    );
    await store.close();
  });

  it('needs CREATE on the database, or a schema made for its user: without either, one line says so', async () => {
    const role = `job_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(8).toString('hex');
    await database.admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    const refused = freshSchema(as(role, password, database.url));
    await expect(openStore(refused)).rejects.toThrow(/permission denied for database .*the user needs the privilege to create its schema/);

    // An administrator makes the schema for the job's user: the job sets up its tables there.
    const granted = freshSchema(as(role, password, database.url));
    await database.admin.query(`CREATE SCHEMA ${new URL(granted).searchParams.get('schema')!} AUTHORIZATION ${role}`);
    const store = await openStore(granted);
    await store.beginJob('https://api.example.com key:0', 'nightly');
    await store.close();
  });

  it('keeps and gives back every text as it was sent: quotes, backslashes, a line break, letters beyond the basic plane (arrays of texts go as literals)', async () => {
    const store = await openStore(freshSchema(database.url));
    try {
      const addresses = ['1 "A" St', 'C:\\2 B St', '3 C St\nrear', '4 ✓ St 😀', '5 {D}, St', 'NULL'];
      const refs = addresses.map((address) => itemRefOf(VALUE, home(address)));
      const bodies = addresses.map((address, i) => ({ ...section(i), note: `${address} \\" \t` }));
      const answers = refs.map((ref, i) => answerOf(ref, [bodies[i]]));
      await store.claim(
        A,
        'job',
        refs.map((ref) => ({ item: ref.item, ...ref.sections[0]! })),
        { maxAgeMs: 60_000 },
        60_000,
      );
      await store.record(entryOf(answers, { owner: 'job', settles: refs.map((ref) => ({ item: ref.item, ...ref.sections[0]! })) }));
      const found = await store.find(A, refs, { maxAgeMs: 60_000 });
      expect(found.map((item) => [item.frame, item.sections[0]?.body])).toEqual(answers.map((answer, i) => [answer.frame, bodies[i]]));
      expect(
        await store.held(
          A,
          'another',
          refs.map((ref) => ({ item: ref.item, ...ref.sections[0]! })),
        ),
      ).toEqual(addresses.map(() => false));
    } finally {
      await store.close();
    }
  });

  it('store info survives times no date can hold (a bigint column takes no text, but any number): left out of oldest and newest, and counted', async () => {
    const url = freshSchema(database.url);
    const store = await openStore(url);
    const answers = ['1 Main St', '2 Main St', '3 Main St'].map((address) => answerOf(itemRefOf(VALUE, home(address)), [section(1)]));
    await store.record(entryOf(answers));
    await store.close();
    const schema = new URL(url).searchParams.get('schema')!;
    await database.admin.query(
      `UPDATE ${schema}.sections SET at = CASE WHEN item = (SELECT min(item) FROM ${schema}.sections) THEN 9223372036854775807 ELSE -9223372036854775808 END
       WHERE item <> (SELECT max(item) FROM ${schema}.sections)`,
    );
    await expect(database.admin.query(`UPDATE ${schema}.sections SET at = 'yesterday'`)).rejects.toThrow(
      /invalid input syntax for type bigint/,
    );
    // From the environment: a password in a --store flag is warned of.
    const info = await runMain(['store', 'info'], { env: { PROPDATA_STORE: url } });
    expect(info.stderr).toBe('');
    expect(info.code).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(info.stdout).toMatch(new RegExp(`\n {2}v2/property/value\\s+3\\s+${today} \\d\\d:\\d\\d\\s+${today} \\d\\d:\\d\\d\n`));
    expect(info.stdout).toMatch(
      /\nnote: 2 answers have an unreadable time \(not a moment in milliseconds\): left out of OLDEST and NEWEST\n$/,
    );
  });

  it('opens a store of schema 5 at the current schema: its items found by their keys, their answers served, claimed as kept and replaced in place', async () => {
    const url = freshSchema(database.url);
    const schema = await storeAtSchema(url, 5);
    const refs = ['405 Dyer Ave', '12 Main St', '7 Oak Ct'].map((address) => itemRefOf(VALUE, home(address)));
    // As schema 5 kept them: items by identity, a section each; a claim of the third.
    await database.admin.query(`INSERT INTO ${schema}.accounts (name) VALUES ($1)`, [A]);
    for (const [i, ref] of refs.slice(0, 2).entries()) {
      const { rows } = await database.admin.query<{ id: string }>(
        `INSERT INTO ${schema}.items (account, identity, at, frame) VALUES (1, $1, $2, $3) RETURNING id`,
        [ref.item, Date.now(), JSON.stringify(frameOf(ref.item))],
      );
      await database.admin.query(`INSERT INTO ${schema}.sections (item, endpoint, params, at, body) VALUES ($1, $2, $3, $4, $5)`, [
        rows[0]!.id,
        ref.sections[0]!.endpoint,
        ref.sections[0]!.params,
        Date.now(),
        JSON.stringify(section(i + 1)),
      ]);
    }
    await database.admin.query(
      `INSERT INTO ${schema}.claims (account, identity, endpoint, params, owner, expires) VALUES (1, $1, $2, $3, 'job old', $4)`,
      [refs[2]!.item, refs[2]!.sections[0]!.endpoint, refs[2]!.sections[0]!.params, Date.now() + HOUR],
    );

    const store = await openStore(url);
    try {
      expect((await database.admin.query(`SELECT version FROM ${schema}.schema_version`)).rows).toEqual([{ version: SCHEMA_VERSION }]);
      const found = await store.find(A, refs, { maxAgeMs: HOUR });
      expect(found.map((item) => [item.frame, item.sections[0]?.body])).toEqual([
        [frameOf(refs[0]!.item), section(1)],
        [frameOf(refs[1]!.item), section(2)],
        [undefined, undefined],
      ]);
      expect(await store.claim(A, 'job new', [...claimsOf(refs[0]!), ...claimsOf(refs[2]!)], { maxAgeMs: HOUR }, HOUR)).toEqual([
        'kept',
        'held',
      ]);
      await store.record(entryOf([answerOf(refs[0]!, [section(3)]), answerOf(refs[2]!, [section(4)])]));
      expect((await store.find(A, refs, { maxAgeMs: HOUR })).map((item) => item.sections[0]?.body)).toEqual([
        section(3),
        section(2),
        section(4),
      ]);
      expect((await database.admin.query(`SELECT count(*)::int AS items FROM ${schema}.items`)).rows).toEqual([{ items: 3 }]);
    } finally {
      await store.close();
    }
  });

  it('never serves an item the sections of another identity filed under the same key, nor files its answers there', async () => {
    const url = freshSchema(database.url);
    const store = await openStore(url);
    try {
      const [mine, other] = ['405 Dyer Ave', '12 Main St'].map((address) => itemRefOf(VALUE, home(address)));
      await store.record(entryOf([answerOf(mine!, [section(1)])]));
      // Another identity with this one's key (two identities share one in 2^53): its row, as if it had been kept first.
      const schema = new URL(url).searchParams.get('schema')!;
      await database.admin.query(`UPDATE ${schema}.items SET identity = $1`, [other!.item]);
      expect((await store.find(A, [mine!], { maxAgeMs: HOUR }))[0]!.sections).toEqual([undefined]);
      expect(await store.claim(A, 'job', claimsOf(mine!), { maxAgeMs: HOUR }, HOUR)).toEqual(['claimed']);
      await store.record(entryOf([answerOf(mine!, [section(2)])], { owner: 'job', settles: claimsOf(mine!) }));
      expect((await store.find(A, [mine!], { maxAgeMs: HOUR }))[0]!.sections).toEqual([undefined]);
      // The other's row keeps what it had; the claim was released with the answer all the same.
      const { rows } = await database.admin.query(
        `SELECT i.identity, k.body FROM ${schema}.items i JOIN ${schema}.sections k ON k.item = i.id`,
      );
      expect(rows).toEqual([{ identity: other!.item, body: JSON.stringify(section(1)) }]);
      expect(await store.held(A, 'another job', claimsOf(mine!))).toEqual([false]);
    } finally {
      await store.close();
    }
  });

  it('opens a store of schema 6 at the current schema, its claims and locks the same: a one-item claim waits for a schema-6 job holding the lock, then reads the answer it committed', async () => {
    const url = freshSchema(database.url);
    const schema = await storeAtSchema(url, 6);
    const [kept, held, fresh] = ['405 Dyer Ave', '12 Main St', '7 Oak Ct'].map((address) => itemRefOf(VALUE, home(address)));
    const { endpoint, params } = kept!.sections[0]!;
    await database.admin.query(`INSERT INTO ${schema}.accounts (name) VALUES ($1)`, [A]);
    // A claim a job of schema 6 holds, as it wrote it.
    await database.admin.query(
      `INSERT INTO ${schema}.claims (account, key, endpoint, params, owner, expires) VALUES (1, $1, $2, $3, 'job old', $4)`,
      [identityKey(held!.item), endpoint, params, Date.now() + HOUR],
    );
    const store = await openStore(url);
    try {
      expect((await database.admin.query(`SELECT version FROM ${schema}.schema_version`)).rows).toEqual([{ version: SCHEMA_VERSION }]);
      expect((await store.claimItem!(A, 'call 1', held!, { maxAgeMs: HOUR }, HOUR)).outcomes).toEqual(['held']);
      expect((await store.claimItem!(A, 'call 2', fresh!, { maxAgeMs: HOUR }, HOUR)).outcomes).toEqual(['claimed']);
      // A job of schema 6 holds the section's lock, as its statement took it, and keeps its answer.
      await database.admin.query('BEGIN');
      await database.admin.query(`SELECT pg_advisory_xact_lock(hashtextextended($1 || ' claim ' || 1 || ' ' || $2, 0))`, [
        schema,
        `${identityKey(kept!.item)}\n${endpoint}\n${params}`,
      ]);
      const [{ id }] = (
        await database.admin.query<{ id: string }>(
          `INSERT INTO ${schema}.items (account, key, identity, at, frame) VALUES (1, $1, $2, $3, $4) RETURNING id`,
          [identityKey(kept!.item), kept!.item, Date.now(), JSON.stringify(frameOf(kept!.item))],
        )
      ).rows as [{ id: string }];
      await database.admin.query(`INSERT INTO ${schema}.sections (item, endpoint, params, at, body) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        endpoint,
        params,
        Date.now(),
        JSON.stringify(section(1)),
      ]);
      const claiming = store.claimItem!(A, 'call 3', kept!, { maxAgeMs: HOUR }, HOUR);
      await waitedOnLock();
      await database.admin.query('COMMIT');
      const { outcomes, found } = await claiming;
      expect(outcomes).toEqual(['kept']);
      expect(found.sections[0]?.body).toEqual(section(1));
      expect(await store.held(A, 'another job', claimsOf(kept!))).toEqual([false]);
      // The call's answer recorded, its claim released with it.
      await store.record(entryOf([answerOf(fresh!, [section(2)])], { owner: 'call 2', settles: claimsOf(fresh!) }));
      expect(await store.held(A, 'another job', claimsOf(fresh!))).toEqual([false]);
      expect((await store.find(A, [fresh!], { maxAgeMs: HOUR }))[0]!.sections[0]?.body).toEqual(section(2));
    } finally {
      await database.admin.query('ROLLBACK').catch(() => undefined);
      await store.close();
    }
  });

  it('keeps schema 7 as released: its functions are written with the statements’ rules, so a change to those is a new migration', () => {
    const migration = MIGRATIONS[6]!;
    if (typeof migration !== 'function') throw new Error('schema 7 is SQL text');
    // Changed? Released migrations are never edited: add a migration that replaces the functions.
    expect(createHash('sha256').update(migration('"propdata"')).digest('hex').slice(0, 16)).toBe('d40916b8069e1c36');
  });
});

/** Resolves once a statement of the store waits for an advisory lock the test's connection holds. */
async function waitedOnLock(): Promise<void> {
  for (;;) {
    const { rows } = await database.admin.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
