import type { PoolClient } from 'pg';
import { claimFunctionsMigration } from './claim-functions.js';
import { itemKeysMigration } from './item-keys.js';
import { recordAnswerFunction } from './record-answer.js';
import { keyHoldsMigration, keysMigration } from './keys.js';
import { codeOf } from './postgres-failure.js';

/**
 * One version's change: its SQL text, or, where the change needs what only TypeScript computes (an
 * item's key), statements run on the migrating transaction's client.
 */
export type Migration = ((s: string) => string) | { run(client: PoolClient, s: string): Promise<void> };

/**
 * The schema of the store in a PostgreSQL database, one migration per version, applied in order
 * from the version its `schema_version` table holds. Released migrations are never edited: a
 * change is a new entry. Everything lives in the store's own schema (`propdata` unless the URL's
 * `schema` says otherwise), named in every statement, so nothing depends on the search_path. The
 * tables are the SQLite file's (sqlite/schema.ts), keyed the same way; times are epoch
 * milliseconds on the database's clock (now_ms), money integer micro-dollars.
 */
export const MIGRATIONS: readonly Migration[] = [
  // 1: answers, claims, jobs, spend, remembered limits, the shared pacer.
  (s) => `
  -- The database's clock, the only one every machine sees: everything the store times is on it
  -- (answers' age, claims' leases, jobs, the pacer). now_ms is the transaction's time, so that one
  -- statement stamps all it writes alike; clock_ms the moment it is read (the pacer reads it once
  -- it holds the account's lock). A session may set propdata.now: the tests' fake clock.
  CREATE FUNCTION ${s}.now_ms() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('propdata.now', true), '')::bigint, floor(extract(epoch FROM now()) * 1000)::bigint)
  $$;
  CREATE FUNCTION ${s}.clock_ms() RETURNS double precision LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(nullif(current_setting('propdata.now', true), '')::double precision, extract(epoch FROM clock_timestamp())::double precision * 1000)
  $$;
  -- Freshness as store/freshness.ts states it, at the database's now: arrived within max_age, or
  -- at or after since (the job's start); a null bound admits nothing.
  CREATE FUNCTION ${s}.fresh(at bigint, max_age bigint, since bigint) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT at > ${s}.now_ms() - max_age OR at >= since
  $$;
  -- Whether a kept text is whole JSON (JSON.parse decides the same when reading it back): one
  -- that is not is replaced by any answer, even an older one.
  CREATE FUNCTION ${s}.readable(text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN PERFORM $1::json; RETURN true; EXCEPTION WHEN others THEN RETURN false; END
  $$;

  CREATE TABLE ${s}.accounts (id serial PRIMARY KEY, name text NOT NULL UNIQUE);

  -- One row per item: its identity (level and normalised identifiers), when its newest section
  -- arrived, and the chunk's other members as last received (JSON text). One row per section:
  -- the endpoint (with its version), the endpoint's own parameters ('' when none), when it
  -- arrived, and the section as the service sent it (JSON text, as sent: jsonb would reorder it).
  CREATE TABLE ${s}.items (
    id bigserial PRIMARY KEY,
    account integer NOT NULL,
    identity text NOT NULL,
    at bigint NOT NULL,
    frame text NOT NULL,
    UNIQUE (account, identity)
  );
  CREATE TABLE ${s}.sections (
    item bigint NOT NULL,
    endpoint text NOT NULL,
    params text NOT NULL,
    at bigint NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (item, endpoint, params)
  );

  -- Sections a run is buying, so that another (on any machine) waits for its answer: whose, and
  -- until when (a lease its owner renews; a crashed run's lapses).
  CREATE TABLE ${s}.claims (
    account integer NOT NULL,
    identity text NOT NULL,
    endpoint text NOT NULL,
    params text NOT NULL,
    owner text NOT NULL,
    expires bigint NOT NULL,
    PRIMARY KEY (account, identity, endpoint, params)
  );
  CREATE INDEX claims_by_owner ON ${s}.claims (owner);

  -- A job (one command on one input and output) from its first run until one completes it.
  CREATE TABLE ${s}.jobs (
    account integer NOT NULL,
    job text NOT NULL,
    started bigint NOT NULL,
    finished bigint,
    PRIMARY KEY (account, job)
  );

  -- Every request that reached the service (at: the run's time, which with the run identifies it:
  -- recorded once), and the rows answered from the store instead.
  CREATE TABLE ${s}.requests (
    at bigint NOT NULL,
    run text NOT NULL,
    account integer NOT NULL,
    endpoint text NOT NULL,
    items integer NOT NULL,
    components integer NOT NULL,
    status integer NOT NULL,
    billed integer NOT NULL,
    cost bigint NOT NULL,
    UNIQUE (account, at, run)
  );
  CREATE TABLE ${s}.reused (
    at bigint NOT NULL,
    run text NOT NULL,
    account integer NOT NULL,
    endpoint text NOT NULL,
    rows integer NOT NULL,
    saved bigint NOT NULL
  );

  -- The rate-limit windows the service last reported, per account (JSON, resets on the database's clock).
  CREATE TABLE ${s}.windows (account integer PRIMARY KEY, at bigint NOT NULL, windows text NOT NULL);

  -- The account's shared pacer (throttle/shared-pacer.ts, JSON): read and written back while the
  -- account's advisory lock is held, so no two jobs, on any machine, reserve the same room.
  CREATE TABLE ${s}.pacer (account integer PRIMARY KEY, at bigint NOT NULL, state text NOT NULL);
  `,
  // 2: freshness is decided by one rule in TypeScript (store/freshness.ts), which every driver
  // applies as a bound on the arrival: the SQL copy of it is gone.
  (s) => `DROP FUNCTION ${s}.fresh(bigint, bigint, bigint);`,
  // 3: a gateway's client keys and their spend.
  keysMigration,
  // 4: the runs on the store now.
  (s) => `
  -- Each run on the store while it runs (a lease it renews, as its claims): a run counts as fresh
  -- what was kept since the start of any run it overlaps (PROTOCOL.md, rule 1). A few rows.
  CREATE TABLE ${s}.runs (
    run text PRIMARY KEY,
    account integer NOT NULL,
    started bigint NOT NULL,
    expires bigint NOT NULL
  );
  `,
  // 5: keys changed in place, rotated, expiring, rated; budgets held by calls in flight.
  keyHoldsMigration,
  // 6: an item is found by its key (store/identity-key.ts), as in the SQLite file since its schema 5.
  itemKeysMigration,
  // 7: a claim's statements, a run's entry and a one-answer record as functions: a one-item call's
  // claim and record are one prepared statement each.
  (s) => claimFunctionsMigration(s) + recordAnswerFunction(s),
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Schema or table missing: a database propdata has not used yet (or not under this schema). */
const ABSENT = ['3F000', '42P01'];

/**
 * The version the schema holds, and the database's clock_ms() when it answered (the first measure of
 * its clock): version 0 for a database propdata has not set up. One round trip.
 */
export async function schemaVersion(client: PoolClient, s: string): Promise<{ version: number; databaseTime?: number }> {
  try {
    const { rows } = await client.query<{ version: number; now: number }>(
      `SELECT version, ${s}.clock_ms() AS now FROM ${s}.schema_version`,
    );
    return rows[0] ? { version: rows[0].version, databaseTime: rows[0].now } : { version: 0 };
  } catch (error) {
    if (ABSENT.includes(codeOf(error))) return { version: 0 };
    throw error;
  }
}

/**
 * Brings the schema up to SCHEMA_VERSION, in one transaction under an advisory lock, so that jobs
 * on several machines opening a new database at once set it up once. The schema is created only
 * when missing: a database administrator may make it for the job beforehand (docs/several-machines.md), and the job
 * then needs no privilege on the database itself. Returns the version found.
 */
export async function migrate(client: PoolClient, schema: string, s: string): Promise<number> {
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`propdata schema ${schema}`]);
  const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
  const found = (await client.query<{ version: number }>(`SELECT version FROM ${s}.schema_version`)).rows[0]?.version ?? 0;
  for (const migration of MIGRATIONS.slice(found)) {
    if (typeof migration === 'function') await client.query(migration(s));
    else await migration.run(client, s);
  }
  if (found === 0) await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [SCHEMA_VERSION]);
  else if (found < SCHEMA_VERSION) await client.query(`UPDATE ${s}.schema_version SET version = $1`, [SCHEMA_VERSION]);
  await client.query('COMMIT');
  return found;
}
