import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createDatabase } from './embedded-postgres.mjs';

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
