import type { PoolClient } from 'pg';
import { parseDatabaseUrl, withoutPassword } from '../../config/database-url.js';
import { ConfigError, StoreError } from '../../errors/index.js';
import type { Store } from '../store-api.js';
import { DatabaseClock } from './database-clock.js';
import { newerSchemaFailure } from '../newer-schema.js';
import { Database } from './database.js';
import { PostgresStore } from './postgres-store.js';
import { migrate, schemaVersion, SCHEMA_VERSION } from './schema.js';
import { STORE_WAITS } from '../../policy/policy.js';

export interface PostgresStoreOptions {
  /** Read only (usage, store info): nothing is created or migrated. */
  readonly?: boolean;
  /** The run's clock, whose times the store converts to and from the database's (default: the system's). */
  now?: () => number;
  /** The connections the store keeps (a session's lookups, claims, writes and pacer, every job's at once); default CONNECTIONS. */
  connections?: number;
  /** Tests only: a clock the database's now_ms() and clock_ms() read instead of its own (the contract suite's fake one). */
  databaseNow?: () => number;
}

/** The schema a store uses unless the URL's `schema` parameter names another (several stores in one database). */
const DEFAULT_SCHEMA = 'propdata';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Connections a store keeps unless told otherwise: a run's lookups (several at once), its claims, its writes and its pacer never wait for one another. */
const CONNECTIONS = 6;

/** The URL's parts: the schema (taken out: node-postgres would send it on as a connection parameter) and the rest. */
function splitSchema(url: string): { connectionString: string; schema: string } {
  const parsed = parseDatabaseUrl(url);
  const schema = parsed.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new ConfigError(
      `the store's schema "${schema}" is not a plain name: lower-case letters, digits and _, at most 63`,
      'E_STORE_URL',
    );
  }
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

function refuse(location: string, version: number, readonly: boolean): void {
  if (version > SCHEMA_VERSION) throw newerSchemaFailure(location, version, SCHEMA_VERSION);
  if (readonly && version < SCHEMA_VERSION) {
    throw new StoreError(
      `cannot use the store ${location}: its schema is at version ${version}, older than this propdata's ${SCHEMA_VERSION}; a run that writes to it brings it up to date`,
    );
  }
}

/**
 * Opens the store in the PostgreSQL database at `url` (postgres://user@host/db, with libpq's
 * sslmode, sslrootcert...; the password from the URL, PGPASSWORD or ~/.pgpass), creating and
 * migrating its schema unless `readonly`. node-postgres is loaded here: --help and the commands on a
 * local store never load it. `existing`: undefined, rather than created, when the database holds no
 * store yet (`store info`, `usage`). Connecting, and the first statement, measure the database's
 * clock; a failure is one StoreError naming the URL without its password.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions & { existing: true }): Promise<Store | undefined>;
export async function openPostgresStore(url: string, options?: PostgresStoreOptions): Promise<Store>;
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions & { existing?: boolean } = {},
): Promise<Store | undefined> {
  const location = withoutPassword(url);
  const { connectionString, schema } = splitSchema(url);
  const { default: pg } = await import('pg');
  // Times and money are bigint and sums numeric, which node-postgres leaves as text: here they are
  // numbers (epoch milliseconds and micro-dollars stay exact in a double).
  const types = new pg.TypeOverrides();
  for (const oid of [pg.types.builtins.INT8, pg.types.builtins.NUMERIC]) types.setTypeParser(oid, Number);
  const pool = new pg.Pool({
    connectionString,
    max: options.connections ?? CONNECTIONS,
    // Kept open until the store closes: a nightly run waiting out a window reconnects for nothing.
    idleTimeoutMillis: 0,
    connectionTimeoutMillis: STORE_WAITS.connectTimeoutMs,
    query_timeout: STORE_WAITS.queryTimeoutMs,
    keepAlive: true,
    application_name: 'propdata',
    types,
  });
  const s = pg.escapeIdentifier(schema);
  const db = new Database(pool, location, options.databaseNow, {
    versionQuery: `SELECT version FROM ${s}.schema_version`,
    known: SCHEMA_VERSION,
  });
  const clock = new DatabaseClock(options.now ?? Date.now);
  try {
    const version = await db.session(async (client: PoolClient) => {
      const sentAt = clock.runNow();
      const found = await schemaVersion(client, s);
      if (found.databaseTime !== undefined) clock.observe(found.databaseTime, sentAt, clock.runNow());
      if (found.version >= SCHEMA_VERSION || options.readonly || (options.existing && found.version === 0)) return found.version;
      const migrated = await migrate(client, schema, s);
      // A store just set up: its clock is measured now, before any time is exchanged with the run.
      const measuredAt = clock.runNow();
      const { rows } = await client.query<{ now: number }>(`SELECT ${s}.clock_ms() AS now`);
      clock.observe(rows[0]!.now, measuredAt, clock.runNow());
      return migrated;
    });
    if (options.existing && version === 0) {
      await db.close();
      return undefined;
    }
    refuse(location, version, options.readonly ?? false);
    return new PostgresStore({ db, location, schema, s, schemaLiteral: pg.escapeLiteral(schema), clock });
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
