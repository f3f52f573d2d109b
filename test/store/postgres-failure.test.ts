import { once } from 'node:events';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { databaseFailure, isOutage } from '../../src/store/postgres/postgres-failure.js';
import { databasePerFile } from '../helpers/postgres.js';

/**
 * What a user reads when the database refuses, and whether a run should wait for it: from real
 * failures of the test run's PostgreSQL where one can be made, from errors shaped as node-postgres
 * gives them (a SQLSTATE in `code`, the server's message) for the rest.
 */
const database = databasePerFile();

async function connection(url = database.url): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  // An error the server sends between statements (it closed the connection) comes as an event: heard by the test.
  client.on('error', () => undefined);
  await client.connect();
  onTestFinished(() => client.end().catch(() => undefined));
  return client;
}

/** The failure of `work`, which must fail. */
async function failureOf(work: () => Promise<unknown>): Promise<Error> {
  try {
    await work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('it did not fail');
}

/** The line a user reads, without the store's URL and the --no-store that every such line has. */
const said = (error: unknown) =>
  databaseFailure('postgres://jobs@db/propdata', error)
    .message.replace(/^cannot use the store \S+: /, '')
    .replace(/; or run with --no-store$/, '');

const made = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('a refusal of the database, named by its cause', () => {
  it("statement_timeout: the role's setting is too short, and how to raise it; nothing to wait for", async () => {
    const client = await connection();
    // 100 ms, not 1: at 1 ms, on a loaded machine, the server once named the cancel "due to user request".
    await client.query('SET statement_timeout = 100');
    const error = await failureOf(() => client.query('SELECT pg_sleep(1)'));
    expect(error).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
    expect(said(error)).toBe(
      "the database cancelled a statement that ran past its statement_timeout (canceling statement due to statement timeout); the role's or database's statement_timeout is too short for propdata: raise it, ALTER ROLE <user> SET statement_timeout = '5min' (or ALTER DATABASE)",
    );
    expect(said(error)).not.toMatch(/reachable/);
    expect(isOutage(error)).toBe(false);
    expect(isOutage(databaseFailure('postgres://jobs@db/propdata', error))).toBe(false);
  });

  it('a statement cancelled by an administrator', async () => {
    const client = await connection();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const sleeping = failureOf(() => client.query('SELECT pg_sleep(10)'));
    // Cancelled once it runs: a cancel that comes before the statement cancels nothing.
    const state = async () =>
      (await database.admin.query('SELECT state FROM pg_stat_activity WHERE pid = $1', [rows[0]!.pid])).rows[0]?.state;
    await expect.poll(state).toBe('active');
    await database.admin.query('SELECT pg_cancel_backend($1)', [rows[0]!.pid]);
    const error = await sleeping;
    expect(error).toMatchObject({ code: '57014' });
    expect(said(error)).toBe('a statement was cancelled by an administrator (canceling statement due to user request); run again');
    expect(isOutage(error)).toBe(false);
  });

  it('a read-only database: a standby, or default_transaction_read_only', async () => {
    const client = await connection();
    await client.query('SET default_transaction_read_only = on');
    const error = await failureOf(() => client.query('CREATE TABLE written (id integer)'));
    expect(error).toMatchObject({ code: '25006' });
    expect(said(error)).toBe(
      'the database is read-only (cannot execute CREATE TABLE in a read-only transaction): a standby (a read replica), or default_transaction_read_only is on; point the URL at the primary, or ALTER ROLE <user> SET default_transaction_read_only = off (or ALTER DATABASE)',
    );
    expect(isOutage(error)).toBe(false);
  });

  it('a connection an administrator ended: an outage (the server restarts, or the run connects again)', async () => {
    const client = await connection();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const ended = once(client, 'error') as Promise<[Error]>;
    await database.admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    const [error] = await ended;
    expect(error).toMatchObject({ code: '57P01' });
    expect(said(error)).toBe(
      'an administrator ended the connection (terminating connection due to administrator command: a shutdown or restart, or pg_terminate_backend); run again once the database is up',
    );
    expect(isOutage(error)).toBe(true);
    // The next statement on that connection: node-postgres's own words, no code.
    const after = await failureOf(() => client.query('SELECT 1'));
    expect(isOutage(after)).toBe(true);
  });

  it('idle_session_timeout and idle_in_transaction_session_timeout: named, with the setting to raise', async () => {
    const idle = await connection();
    const closed = once(idle, 'error') as Promise<[Error]>;
    await idle.query("SET idle_session_timeout = '50ms'");
    const [idleError] = await closed;
    expect(idleError).toMatchObject({ code: '57P05' });
    expect(said(idleError)).toMatch(
      /^the database closed a connection that waited too long \(terminating connection due to idle-session timeout\); the role's or database's idle_session_timeout is shorter than propdata's waits: raise it, ALTER ROLE <user> SET idle_session_timeout = 0 \(or ALTER DATABASE\), or run again$/,
    );
    // A new connection is all it takes.
    expect(isOutage(idleError)).toBe(true);

    const waiting = await connection();
    const ended = once(waiting, 'error') as Promise<[Error]>;
    await waiting.query("BEGIN; SET LOCAL idle_in_transaction_session_timeout = '50ms'");
    const [transactionError] = await ended;
    expect(transactionError).toMatchObject({ code: '25P03' });
    expect(said(transactionError)).toMatch(
      /idle_in_transaction_session_timeout is too short for propdata: raise it, ALTER ROLE <user> SET/,
    );
    expect(isOutage(transactionError)).toBe(false);
  });

  it('a lock held too long, and a deadlock', async () => {
    const [holder, waiter] = [await connection(), await connection()];
    await holder.query(
      'CREATE TABLE IF NOT EXISTS locked (id integer PRIMARY KEY); INSERT INTO locked VALUES (1), (2) ON CONFLICT DO NOTHING',
    );
    await holder.query('BEGIN; LOCK TABLE locked');
    await waiter.query("SET lock_timeout = '20ms'");
    const lockError = await failureOf(() => waiter.query('SELECT * FROM locked'));
    expect(lockError).toMatchObject({ code: '55P03' });
    expect(said(lockError)).toMatch(
      /^another job held the account's pacer for too long \(canceling statement due to lock timeout\); try again$/,
    );
    expect(isOutage(lockError)).toBe(false);
    await holder.query('ROLLBACK');

    await waiter.query('SET lock_timeout = 0');
    // Found at once rather than after the default second.
    await Promise.all([holder, waiter].map((client) => client.query("SET deadlock_timeout = '10ms'")));
    await holder.query('BEGIN; UPDATE locked SET id = id WHERE id = 1');
    await waiter.query('BEGIN; UPDATE locked SET id = id WHERE id = 2');
    const crossed = [
      failureOf(() => holder.query('UPDATE locked SET id = id WHERE id = 2')).catch((error: unknown) => error as Error),
      failureOf(() => waiter.query('UPDATE locked SET id = id WHERE id = 1')).catch((error: unknown) => error as Error),
    ];
    const deadlock = await Promise.race(crossed);
    expect(deadlock).toMatchObject({ code: '40P01' });
    expect(said(deadlock)).toMatch(
      /^the database undid a transaction for another's sake \(deadlock detected\); run again: nothing is lost$/,
    );
    expect(isOutage(deadlock)).toBe(false);
    await Promise.all([holder.query('ROLLBACK'), waiter.query('ROLLBACK')]);
  });

  it('a login refused, a password not given, nothing listening', async () => {
    const wrong = new URL(database.url);
    wrong.password = 'not-the-password';
    const login = await failureOf(() => connection(wrong.toString()));
    expect(login).toMatchObject({ code: '28P01' });
    expect(said(login)).toMatch(/^the database refused the login \(.*\); check the user, and the password in PGPASSWORD or ~\/\.pgpass$/);
    expect(isOutage(login)).toBe(false);

    const bare = new URL(database.url);
    bare.password = '';
    const missing = await failureOf(() => connection(bare.toString()));
    expect(said(missing)).toBe('the database asks for a password and none was given; set PGPASSWORD, or add a line for it to ~/.pgpass');
    expect(isOutage(missing)).toBe(false);

    const refused = await failureOf(() => connection('postgres://jobs@127.0.0.1:9/propdata'));
    expect(said(refused)).toBe('the database refused the connection (nothing listens at that host and port); start it or correct the URL');
    expect(isOutage(refused)).toBe(true);
  });

  it.each([
    [
      '53100',
      'could not extend file "base/16384/16385": No space left on device',
      false,
      /^the database's disk is full \(.*\); free room on the database server, then run again$/,
    ],
    [
      '53200',
      'out of memory',
      false,
      /^the database ran out of memory \(out of memory\); run again, or give the database server more memory$/,
    ],
    [
      '54000',
      'stack depth limit exceeded',
      false,
      /^the database refused a statement over one of its limits \(stack depth limit exceeded\); raise that setting/,
    ],
    ['54001', 'statement is too complex', false, /over one of its limits/],
    ['40001', 'could not serialize access due to concurrent update', false, /^the database undid a transaction for another's sake/],
    [
      '57P02',
      'terminating connection because of crash of another server process',
      true,
      /^the database server crashed \(.*\); run again once it is back$/,
    ],
    ['57P03', 'the database system is starting up', true, /^the database is starting up or recovering \(.*\); try again in a moment$/],
    ['53300', 'sorry, too many clients already', true, /^the database is not taking connections now \(.*\); try again later$/],
    ['08006', 'connection failure', true, /^the database is not taking connections now/],
    ['08P01', 'invalid message format', false, /invalid message format \(08P01\)$/],
    ['3D000', 'database "jobs" does not exist', false, /^database "jobs" does not exist; create it, or name an existing one$/],
    ['42501', 'permission denied for database jobs', false, /the user needs the privilege to create its schema/],
    [
      'ECONNRESET',
      'read ECONNRESET',
      true,
      /^the database did not answer \(read ECONNRESET\); check that it is up and reachable from this machine$/,
    ],
    ['ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:5432', true, /did not answer/],
    ['EAI_AGAIN', 'getaddrinfo EAI_AGAIN db.internal', true, /^its host was not found \(EAI_AGAIN\); correct the URL$/],
    ['ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal', false, /^its host was not found \(ENOTFOUND\); correct the URL$/],
  ])('%s (%s): an outage: %s', (code, message, outage, line) => {
    const error = made(code, message);
    expect(said(error)).toMatch(line);
    expect(isOutage(error)).toBe(outage);
  });

  it("node-postgres's own failures, without a code: a stalled or cut connection is an outage, the rest not", () => {
    for (const message of ['Query read timeout', 'Connection terminated unexpectedly', 'timeout exceeded when trying to connect']) {
      expect(isOutage(new Error(message)), message).toBe(true);
      expect(said(new Error(message)), message).toMatch(/^the database did not answer/);
    }
    expect(isOutage(new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }))).toBe(true);
    expect(isOutage(new Error('self-signed certificate in certificate chain'))).toBe(false);
    expect(isOutage(new Error('relation "propdata.items" does not exist'))).toBe(false);
  });
});
