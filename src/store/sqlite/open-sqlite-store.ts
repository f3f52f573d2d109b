import { closeSync, existsSync, fstatSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';
import { PropdataError, StoreError } from '../../errors/index.js';
import { foldPending, hasPending, pendingDir } from '../pending.js';
import type { Store, StoreOptions } from '../store-api.js';
import { migrate, schemaVersion, SCHEMA_VERSION } from './schema.js';
import { newerSchemaFailure } from '../newer-schema.js';
import { storeFailure } from './sqlite-failure.js';
import { SqliteStore } from './sqlite-store.js';
import { STORE_WAITS } from '../../policy/policy.js';

/** Pages of write-ahead log between two folds into the file: 16 MB of 4 KiB pages (SQLite's default is 1,000). */
const WAL_PAGES = 4_000;

/**
 * The file made before SQLite opens it, so that it, its log and its shared-memory file (SQLite
 * gives them the file's mode) are the user's alone: answers may carry the user's own addresses.
 */
function createPrivately(path: string): { empty: boolean } {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'a', 0o600);
  try {
    return { empty: fstatSync(fd).size === 0 };
  } finally {
    closeSync(fd);
  }
}

function checkVersion(path: string, found: number, readonly: boolean): void {
  if (found > SCHEMA_VERSION) throw newerSchemaFailure(path, found, SCHEMA_VERSION);
  if (readonly && found < SCHEMA_VERSION) {
    throw new StoreError(
      `cannot use the store ${path}: it is ${found === 0 ? 'empty or not a propdata store' : `at schema ${found}, older than this propdata's ${SCHEMA_VERSION}`}; a run that writes to it brings it up to date`,
    );
  }
}

/**
 * Opens (creating and migrating if need be) the store at `path`. better-sqlite3 is loaded here, not
 * at start-up: `--help` and the commands without a store never pay for it. WAL mode: readers never
 * block the writer, several processes share the file, and a process killed mid-transaction leaves
 * the last commit intact. synchronous=NORMAL: in WAL mode that is still safe against any process
 * crash; only a power cut may lose the last commits, never the file.
 */
export async function openSqliteStore(path: string, options: StoreOptions = {}): Promise<Store> {
  const busyTimeoutMs = options.busyTimeoutMs ?? STORE_WAITS.busyTimeoutMs;
  // Entries written beside the store (one-offs' records) are applied at its next opening; a
  // read-only one (usage) would miss them, so it applies them first, with a writing one.
  if (options.readonly && hasPending(pendingDir(path))) await (await openSqliteStore(path, { ...options, readonly: false })).close();
  const readonly = options.readonly ?? false;
  let db: Database | undefined;
  try {
    // A native module: a failed build is a store that cannot be opened, like any other.
    const { default: Sqlite } = await import('better-sqlite3');
    const empty = !readonly && createPrivately(path).empty;
    db = new Sqlite(path, { readonly, fileMustExist: readonly, timeout: busyTimeoutMs });
    // Only a new file can take it, and before its first write (WAL mode's header included): it
    // lets prune hand freed pages back to the file system.
    if (empty) db.pragma('auto_vacuum = INCREMENTAL');
    if (!readonly) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // A response's answers land on random pages of the identity index, about a page each: the log
    // is folded into the file (and synced) every WAL_PAGES pages rather than every 1,000, so a
    // page changed by many responses is written to the file once.
    db.pragma(`wal_autocheckpoint = ${WAL_PAGES}`);
    checkVersion(path, readonly ? schemaVersion(db) : migrate(db), readonly);
    const store = new SqliteStore(db, { path, busyTimeoutMs, now: options.now ?? Date.now });
    if (!readonly) await foldPending(store, pendingDir(path));
    return store;
  } catch (error) {
    if (db?.open) db.close();
    throw error instanceof PropdataError ? error : storeFailure(path, error, busyTimeoutMs);
  }
}

/**
 * The store at `path` if there is one, or records left for it (a one-off's, before any store was
 * made): commands that only read or remove from it never create it otherwise.
 */
export async function openExistingSqliteStore(path: string, options: StoreOptions = {}): Promise<Store | undefined> {
  return existsSync(path) || hasPending(pendingDir(path)) ? openSqliteStore(path, options) : undefined;
}
