import type { Database } from 'better-sqlite3';
import { identityKey } from '../identity-key.js';
import { KEY_HOLDS_MIGRATION, KEYS_MIGRATION } from './keys.js';

/**
 * The schema, one migration per version, applied in order from the file's `user_version`. Released
 * migrations are never edited: a change is a new entry, so any store written by any release opens.
 * Times are epoch milliseconds; money is integer micro-dollars (sums of list prices stay exact).
 */
export const MIGRATIONS: readonly string[] = [
  // 1: answers, spend, remembered limits.
  `
  -- Names stored once and referred to by number: each answer row carries a small integer, not text.
  CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
  CREATE TABLE endpoints (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);

  -- One row per item asked (identifiers and parameters, as the caller's key; only its sha-256 is
  -- kept) with the chunk's other members as last received; one row per section answered for it.
  CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    account INTEGER NOT NULL,
    key BLOB NOT NULL,
    at INTEGER NOT NULL,
    frame BLOB NOT NULL,
    UNIQUE (account, key)
  );
  CREATE TABLE sections (
    item INTEGER NOT NULL,
    endpoint INTEGER NOT NULL,
    at INTEGER NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (item, endpoint)
  ) WITHOUT ROWID;

  -- Every request that reached the service, and the rows answered from the store instead.
  CREATE TABLE requests (
    at INTEGER NOT NULL,
    run TEXT NOT NULL,
    account INTEGER NOT NULL,
    endpoint TEXT NOT NULL,
    items INTEGER NOT NULL,
    components INTEGER NOT NULL,
    status INTEGER NOT NULL,
    billed INTEGER NOT NULL,
    cost INTEGER NOT NULL
  );
  CREATE INDEX requests_by_account ON requests (account, at);
  CREATE TABLE reused (
    at INTEGER NOT NULL,
    run TEXT NOT NULL,
    account INTEGER NOT NULL,
    endpoint TEXT NOT NULL,
    rows INTEGER NOT NULL,
    saved INTEGER NOT NULL
  );

  -- The rate-limit windows the service last reported, per account (JSON).
  CREATE TABLE windows (account INTEGER PRIMARY KEY, at INTEGER NOT NULL, windows TEXT NOT NULL);
  `,
  // 2: one pacer shared by the runs of an account on this machine.
  `
  -- The account's windows as the service states them, every process's reservations in them and
  -- the processes asking (throttle/shared-pacer.ts, JSON): read and written inside one write
  -- transaction per grant, so no two processes ever reserve the same room.
  CREATE TABLE pacer (account INTEGER PRIMARY KEY, at INTEGER NOT NULL, state TEXT NOT NULL);
  `,
  // 3: sections filed by what the item is, whatever command bought them; claims; jobs.
  `
  -- Answers of schema 1 and 2 are filed under a hash of the command's path and the whole item,
  -- which cannot be turned back into an identity: they are dropped (spend, windows and the pacer
  -- stay). Their endpoint names had no version.
  DROP TABLE sections;
  DROP TABLE items;
  DELETE FROM endpoints;

  -- One row per item: its identity (level and normalised identifiers, as text), when its newest
  -- section arrived, and the chunk's other members as last received (JSON). One row per section:
  -- the endpoint (with its version), the endpoint's own parameters ('' when none), when it
  -- arrived, and the section as the service sent it (JSON text: compressing each one cost more
  -- time than the bytes it saved).
  CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    account INTEGER NOT NULL,
    identity TEXT NOT NULL,
    at INTEGER NOT NULL,
    frame TEXT NOT NULL,
    UNIQUE (account, identity)
  );
  CREATE TABLE sections (
    item INTEGER NOT NULL,
    endpoint INTEGER NOT NULL,
    params TEXT NOT NULL,
    at INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (item, endpoint, params)
  ) WITHOUT ROWID;

  -- Sections a run is buying, so that another waits for its answer: whose, and until when (a
  -- lease the owner renews; a crashed run's lapses). Keyed as a section is, before its item exists.
  CREATE TABLE claims (
    account INTEGER NOT NULL,
    identity TEXT NOT NULL,
    endpoint INTEGER NOT NULL,
    params TEXT NOT NULL,
    owner TEXT NOT NULL,
    expires INTEGER NOT NULL,
    PRIMARY KEY (account, identity, endpoint, params)
  ) WITHOUT ROWID;
  CREATE INDEX claims_by_owner ON claims (owner);

  -- A job (one command on one input and output) from its first run until one completes it.
  CREATE TABLE jobs (
    account INTEGER NOT NULL,
    job TEXT NOT NULL,
    started INTEGER NOT NULL,
    finished INTEGER,
    PRIMARY KEY (account, job)
  );
  `,
  // 4: a gateway's client keys and their spend.
  KEYS_MIGRATION,
  // 5: an item found by a number made from its identity; a claim names its owner by number.
  `
  -- The index on (account, identity) held a second copy of every identity, and each response's
  -- answers landed on about a page of it apiece: items are found by a 53-bit key made from the
  -- identity (identity_key: sqlite/identity-key.ts), the identity compared in the row. Same ids, so
  -- sections still point at their items.
  CREATE TABLE keyed_items (
    id INTEGER PRIMARY KEY,
    account INTEGER NOT NULL,
    key INTEGER NOT NULL,
    identity TEXT NOT NULL,
    at INTEGER NOT NULL,
    frame TEXT NOT NULL
  );
  INSERT INTO keyed_items (id, account, key, identity, at, frame) SELECT id, account, identity_key(identity), identity, at, frame FROM items;
  DROP TABLE items;
  ALTER TABLE keyed_items RENAME TO items;
  CREATE INDEX items_by_key ON items (key);

  -- A run's name is long (its command line) and was written into every claim and an index of them:
  -- claims name it by number. The table holds only what is being bought, so renewing and releasing
  -- a run's claims read all of it, without an index.
  CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
  INSERT INTO owners (name) SELECT DISTINCT owner FROM claims;
  CREATE TABLE numbered_claims (
    account INTEGER NOT NULL,
    identity TEXT NOT NULL,
    endpoint INTEGER NOT NULL,
    params TEXT NOT NULL,
    owner INTEGER NOT NULL,
    expires INTEGER NOT NULL,
    PRIMARY KEY (account, identity, endpoint, params)
  ) WITHOUT ROWID;
  INSERT INTO numbered_claims SELECT c.account, c.identity, c.endpoint, c.params, o.id, c.expires FROM claims c JOIN owners o ON o.name = c.owner;
  DROP TABLE claims;
  ALTER TABLE numbered_claims RENAME TO claims;
  `,
  // 6: a claim names its item by key.
  `
  -- A claim named its item by identity, 100 bytes or more: the claims of the requests in flight
  -- spread over dozens of pages, each changed by every claim and every answer's release. By the
  -- item's key (as items are found), a claim row is some 30 bytes (sqlite/claims.ts).
  CREATE TABLE keyed_claims (
    account INTEGER NOT NULL,
    key INTEGER NOT NULL,
    endpoint INTEGER NOT NULL,
    params TEXT NOT NULL,
    owner INTEGER NOT NULL,
    expires INTEGER NOT NULL,
    PRIMARY KEY (account, key, endpoint, params)
  ) WITHOUT ROWID;
  INSERT OR REPLACE INTO keyed_claims SELECT account, identity_key(identity), endpoint, params, owner, expires FROM claims;
  DROP TABLE claims;
  ALTER TABLE keyed_claims RENAME TO claims;
  `,
  // 7: the runs on the store now.
  `
  -- Each run on the store while it runs (a lease it renews, as its claims): a run counts as fresh
  -- what was kept since the start of any run it overlaps (PROTOCOL.md, rule 1). A few rows.
  CREATE TABLE runs (
    run TEXT PRIMARY KEY,
    account INTEGER NOT NULL,
    started INTEGER NOT NULL,
    expires INTEGER NOT NULL
  );
  `,
  // 8: keys changed in place, rotated, expiring, rated; budgets held by calls in flight.
  KEY_HOLDS_MIGRATION,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the file up to SCHEMA_VERSION. The version is read again inside a write transaction, so
 * two processes opening a new file at once migrate it once. Returns the version found, for a caller
 * that refuses a newer one.
 */
export function migrate(db: Database): number {
  const found = schemaVersion(db);
  if (found >= SCHEMA_VERSION) return found;
  // Migrations 5 and 6 file every item and claim under its key.
  db.function('identity_key', { deterministic: true }, (identity: unknown) => identityKey(String(identity)));
  db.transaction(() => {
    for (let version = schemaVersion(db); version < SCHEMA_VERSION; version += 1) {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
  return found;
}
