import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { StoreError } from '../../src/errors/index.js';
import { openStore } from '../../src/store/index.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { storeFailure } from '../../src/store/sqlite/sqlite-failure.js';
import { request } from './contract/fixtures.js';
import { tempStorePath } from './helpers/temp-store.js';

async function failure(promise: Promise<unknown>): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}

/** What SQLite threw, for the message the store makes of it. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (caught) {
    return caught;
  }
  throw new Error('nothing was thrown');
}

describe('opening the store', () => {
  it('creates the file, private, and migrates it from nothing to the current schema', async () => {
    const path = tempStorePath();
    const store = await openStore(path);
    await store.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const db = new Sqlite(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    const tables = db.prepare('SELECT name FROM sqlite_master WHERE type = ? ORDER BY name').pluck().all('table');
    expect(tables).toEqual([
      'accounts',
      'claims',
      'client_keys',
      'endpoints',
      'items',
      'jobs',
      'key_spend',
      'owners',
      'pacer',
      'requests',
      'reused',
      'runs',
      'sections',
      'spend_holds',
      'windows',
    ]);
    db.close();
  });

  it('migrates an empty file, and opens a migrated one again without change', async () => {
    const path = tempStorePath();
    await (await openStore(path)).close();
    writeFileSync(path, '');
    await (await openStore(path)).close();
    await (await openStore(path)).close();
    const db = new Sqlite(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('opens read-only without creating anything', async () => {
    const path = tempStorePath();
    const missing = await failure(openStore(path, { readonly: true }));
    expect(missing.message).toMatch(/--no-store/);
    expect(existsSync(path)).toBe(false);
    await (await openStore(path)).close();
    const store = await openStore(path, { readonly: true });
    expect((await store.usage({ by: 'month' })).rows).toEqual([]);
    await store.close();
  });

  it('refuses a corrupt file in one line naming --no-store', async () => {
    const path = tempStorePath();
    await (await openStore(path)).close();
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    const error = await failure(openStore(path));
    expect(error.message).toMatch(
      new RegExp(`^cannot use the store ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it is damaged or not a propdata store`),
    );
    expect(error.message).toMatch(/--no-store/);
    expect(error.message).not.toContain('\n');
    expect(exitCodeFor(error)).toBe(1);
  });

  it('refuses a file written by a newer propdata', async () => {
    const path = tempStorePath();
    await (await openStore(path)).close();
    const db = new Sqlite(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect((await failure(openStore(path))).message).toMatch(/a newer propdata set it up .*--no-store/);
  });

  it('names a lock SQLite refused at once by its code, not as a wait of the busy timeout', () => {
    const path = tempStorePath();
    mkdirSync(dirname(path), { recursive: true });
    const writer = new Sqlite(path);
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE t (x)');
    // A read transaction overtaken by another's commit cannot write: SQLite says so at once.
    const reader = new Sqlite(path);
    reader.exec('BEGIN');
    reader.prepare('SELECT * FROM t').all();
    writer.exec('INSERT INTO t VALUES (1)');
    const refused = thrownBy(() => reader.exec('INSERT INTO t VALUES (2)'));
    reader.close();
    writer.close();
    expect((refused as { code?: string }).code).toBe('SQLITE_BUSY_SNAPSHOT');
    const message = storeFailure(path, refused, 10_000).message;
    expect(message).toMatch(/another process held a lock it needed \(SQLITE_BUSY_SNAPSHOT\); try again, or run with --no-store/);
    expect(message).not.toMatch(/10 s/);
  });

  it('names a full disk as such, in one line', () => {
    const path = tempStorePath();
    mkdirSync(dirname(path), { recursive: true });
    const db = new Sqlite(path);
    db.exec('CREATE TABLE t (x)');
    // As a full disk does: SQLite may not grow the file.
    db.pragma('max_page_count = 3');
    const full = thrownBy(() => db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(50_000)));
    db.close();
    expect((full as { code?: string }).code).toBe('SQLITE_FULL');
    const error = storeFailure(path, full, 10_000);
    expect(error).toBeInstanceOf(StoreError);
    expect(error.message).toBe(`cannot use the store ${path}: the disk is full; free some space, or run with --no-store`);
  });

  it('says what to do when its native module will not load: allow its install script, rebuild it', () => {
    const path = tempStorePath();
    const dir = dirname(path);
    mkdirSync(dir, { recursive: true });
    // What better-sqlite3 throws when its install script never ran (the real `bindings` lookup,
    // for a module no build made), and when the file is there but no native module for this Node.
    const require = createRequire(import.meta.url);
    const bindings = require('bindings') as (name: string) => unknown;
    const neverBuilt = thrownBy(() => bindings('propdata_never_built'));
    writeFileSync(join(dir, 'broken.node'), 'not a shared object');
    const wrongBuild = thrownBy(() => process.dlopen({ exports: {} }, join(dir, 'broken.node')));
    expect((wrongBuild as { code?: string }).code).toBe('ERR_DLOPEN_FAILED');
    for (const failure of [neverBuilt, wrongBuild]) {
      const error = storeFailure(path, failure, 10_000);
      expect(error).toBeInstanceOf(StoreError);
      expect(error.message).not.toContain('\n');
      expect(error.message).toMatch(/its SQLite driver, better-sqlite3, has no native module built for this Node \(v\d+/);
      expect(error.message).toMatch(/`npm approve-scripts better-sqlite3`, or "allowScripts": \{"better-sqlite3": true\}/);
      expect(error.message).toMatch(/then `npm rebuild better-sqlite3`; or run with --no-store/);
    }
  });

  it('gives up on a store locked too long, naming --no-store', async () => {
    const path = tempStorePath();
    await (await openStore(path)).close();
    const holder = new Sqlite(path);
    holder.exec('BEGIN IMMEDIATE');
    const store = await openStore(path, { busyTimeoutMs: 200 });
    const entry = { request: request(1, 'r'), windows: [], answers: [] };
    const error = await store.record(entry).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/another process has kept it locked .*--no-store/);
    holder.exec('ROLLBACK');
    holder.close();
    // Once the lock is released the same store works.
    await store.record(entry);
    expect((await store.usage({ by: 'run' })).total.requests).toBe(1);
    await store.close();
  });

  it('cannot create a store where it may not write', async () => {
    const path = tempStorePath();
    await (await openStore(path)).close();
    const error = await failure(openStore(join(path, 'inside-a-file.db')));
    expect(error.message).toMatch(/it cannot be opened for writing/);
    expect(error.message).toMatch(/--no-store/);
  });
});
