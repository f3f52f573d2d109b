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
