import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDatabase } from '../bench/embedded-postgres.mjs';

/** The password of the test run's server: nothing propdata prints, writes or keeps may hold it. */
export const postgresPassword = (): string => inject('postgresServer').password;

/** The test run's server, its `postgres` database (to alter the tests' databases from outside). */
export const postgresServer = (): string => inject('postgresServer').url;

/** A new, empty database on the test run's PostgreSQL (postgres-global-setup.ts): its URL, password included. */
export function freshDatabase(): Promise<string> {
  return createDatabase(inject('postgresServer').url, `propdata_test_${randomBytes(6).toString('hex')}`);
}

/** The same database, the store in a schema of its own: a new, empty store each time. */
export function freshSchema(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('schema', `store_${randomBytes(6).toString('hex')}`);
  return url.toString();
}

/**
 * A database of this test file's own, made before its first test: its URL, and a connection to it
 * (closed after the last test) for what a test looks at or changes from outside propdata.
 */
export function databasePerFile(): { readonly url: string; readonly admin: pg.Client } {
  let url: string | undefined;
  let admin: pg.Client | undefined;
  beforeAll(async () => {
    url = await freshDatabase();
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(() => admin?.end());
  const made = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the test file's database is made before its first test");
    return value;
  };
  return {
    get url() {
      return made(url);
    },
    get admin() {
      return made(admin);
    },
  };
}

/**
 * A database outage made from outside: once propdata has recorded `requests` requests in `schema`,
 * the database takes no new connection and ends propdata's (`cut` resolves then); `restore` lets
 * connections in again. Its own connection is to the server's `postgres` database, which stays up.
 */
export async function cutWhenRecorded(database: { url: string; admin: pg.Client }, schema: string, requests = 3) {
  const name = new URL(database.url).pathname.slice(1);
  const server = new pg.Client({ connectionString: postgresServer() });
  await server.connect();
  const cut = (async () => {
    for (;;) {
      const recorded = await database.admin
        .query<{ count: string }>(`SELECT count(*) FROM ${schema}.requests`)
        .catch(() => ({ rows: [{ count: '0' }] }));
      if (Number(recorded.rows[0]!.count) >= requests) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await server.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await server.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'propdata'`, [
      name,
    ]);
  })();
  return {
    cut,
    restore: async () => {
      await server.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    },
    end: () => server.end(),
  };
}
