import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../bench/embedded-postgres.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's PostgreSQL server (its `postgres` database): test/helpers/postgres.ts makes a database per test file on it. */
    postgresServer: { url: string; password: string };
  }
}

/**
 * One real PostgreSQL for the whole test run (vitest's global setup), from the embedded-postgres
 * dev dependency: started before the first test file, stopped after the last. Each test file makes
 * its own database on it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startEmbeddedPostgres();
  project.provide('postgresServer', { url: server.url, password: server.password });
  return () => server.stop();
}
