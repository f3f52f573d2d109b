import { isDatabaseUrl } from '../config/database-url.js';
import { openExistingSqliteStore, openSqliteStore } from './sqlite/open-sqlite-store.js';
import type { Store, StoreOptions } from './store-api.js';

/**
 * Opens the store a command names: a PostgreSQL database for a postgres:// URL, shared by every
 * machine that names it, else the SQLite file at that path. The PostgreSQL driver (and
 * node-postgres under it) is loaded only then.
 */
export async function openStore(location: string, options: StoreOptions = {}): Promise<Store> {
  if (!isDatabaseUrl(location)) return openSqliteStore(location, options);
  const { openPostgresStore } = await import('./postgres/open-postgres-store.js');
  return openPostgresStore(location, options);
}

/** The store if there is one (commands that only read or remove from it never create it). */
export async function openExistingStore(location: string, options: StoreOptions = {}): Promise<Store | undefined> {
  if (!isDatabaseUrl(location)) return openExistingSqliteStore(location, options);
  const { openPostgresStore } = await import('./postgres/open-postgres-store.js');
  return openPostgresStore(location, { ...options, existing: true });
}
