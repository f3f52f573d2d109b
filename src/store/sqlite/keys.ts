import type { Database, Statement } from 'better-sqlite3';
import {
  changedColumns,
  holdRefusal,
  KEY_USAGE_COLUMNS,
  keyColumns,
  keyOfRow,
  keyUsageOf,
  type KeyGroup,
  type KeyRow,
} from '../key-rows.js';
import type { ClientKey, HoldOutcome, KeyChanges, KeySpend, KeyStore, KeyUsageQuery, SpendHold } from '../key-store.js';
import type { NameIds } from '../name-ids.js';
import { monthOf, toMicros, toUsd, type Usage } from '../spend.js';

/** Schema 4 (sqlite/schema.ts): a gateway's client keys and their spend. */
export const KEYS_MIGRATION = `
  -- The client keys of a gateway (propdata serve): the secret as scrypt hashed it (never the
  -- secret), a month budget in micro-dollars, the endpoints it may call (JSON; NULL: every one).
  -- A revoked key stays, so that its spend keeps its name.
  CREATE TABLE client_keys (
    name TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    budget_month INTEGER,
    endpoints TEXT,
    created INTEGER NOT NULL,
    revoked INTEGER
  ) WITHOUT ROWID;

  -- What each key's calls bought and took from the store, summed by a gateway per key and endpoint
  -- between two of its flushes (a row a second at most, not one a request). Money in micro-dollars.
  CREATE TABLE key_spend (
    at INTEGER NOT NULL,
    key TEXT NOT NULL,
    account INTEGER NOT NULL,
    endpoint TEXT NOT NULL,
    requests INTEGER NOT NULL,
    components INTEGER NOT NULL,
    billed INTEGER NOT NULL,
    cost INTEGER NOT NULL,
    rows INTEGER NOT NULL,
    saved INTEGER NOT NULL
  );
  CREATE INDEX key_spend_by_time ON key_spend (at);
`;

/** Schema 7: keys changed in place, rotated, expiring, with a rate of their own; budgets held by the calls in flight. */
export const KEY_HOLDS_MIGRATION = `
  ALTER TABLE client_keys ADD COLUMN expires INTEGER;
  ALTER TABLE client_keys ADD COLUMN rate_per_minute INTEGER;
  -- The secret before the last rotation, and until when it still opens the gateway.
  ALTER TABLE client_keys ADD COLUMN old_secret_hash TEXT;
  ALTER TABLE client_keys ADD COLUMN old_secret_until INTEGER;

  -- What a call in flight may still buy, held against its key's month budget and its account's
  -- until the call is settled (its spend written in key_spend, the hold deleted, in one
  -- transaction), or it lapses (a gateway killed mid-call). Micro-dollars; times the gateways'.
  CREATE TABLE spend_holds (
    id TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    account INTEGER NOT NULL,
    usd INTEGER NOT NULL,
    expires INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX key_spend_by_key ON key_spend (key, at);
`;

/** How the SQLite store runs a statement for the key store: in its read or write transaction, its failures made StoreErrors. */
export interface Transactions {
  read<T>(work: () => T): Promise<T>;
  write<T>(work: () => T): Promise<T>;
}

/** The key store in the SQLite file. */
export class SqliteKeyStore implements KeyStore {
  readonly #db: Database;
  readonly #accounts: NameIds;
  readonly #run: Transactions;
  readonly #find: Statement<[string], KeyRow>;
  readonly #upsert: Statement<[string, string, number | null, string | null, number, number | null, number | null]>;
  readonly #revoke: Statement<[number, string]>;
  readonly #spend: Statement<[number, string, number, string, number, number, number, number, number, number]>;
  readonly #spent: Statement<{ key: string; account: number; now: number; since: number; until: number }, { key: number; account: number }>;
  readonly #hold: Statement<[string, string, number, number, number]>;
  readonly #dropHold: Statement<[string]>;
  readonly #lapsed: Statement<[number]>;
  readonly #renewHold: Statement<[number, string]>;
  readonly #rotate: Statement<[number, string, string]>;

  constructor(db: Database, accounts: NameIds, run: Transactions) {
    this.#db = db;
    this.#accounts = accounts;
    this.#run = run;
    this.#find = db.prepare<[string], KeyRow>('SELECT * FROM client_keys WHERE name = ?');
    this.#upsert = db.prepare(
      `INSERT INTO client_keys (name, secret_hash, budget_month, endpoints, created, expires, rate_per_minute, revoked)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
       ON CONFLICT (name) DO UPDATE SET secret_hash = excluded.secret_hash, budget_month = excluded.budget_month,
         endpoints = excluded.endpoints, created = excluded.created, expires = excluded.expires,
         rate_per_minute = excluded.rate_per_minute, revoked = NULL, old_secret_hash = NULL, old_secret_until = NULL`,
    );
    this.#revoke = db.prepare('UPDATE client_keys SET revoked = ? WHERE name = ? AND revoked IS NULL');
    this.#spend = db.prepare(
      'INSERT INTO key_spend (at, key, account, endpoint, requests, components, billed, cost, rows, saved) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    // The key's settled spend this month and what its live holds hold; the account's spend log and its live holds.
    this.#spent = db.prepare(
      `SELECT (SELECT coalesce(SUM(cost), 0) FROM key_spend WHERE key = @key AND at >= @since)
            + (SELECT coalesce(SUM(usd), 0) FROM spend_holds WHERE key = @key AND expires > @now) AS key,
              (SELECT coalesce(SUM(cost), 0) FROM requests WHERE account = @account AND at >= @since AND at < @until)
            + (SELECT coalesce(SUM(usd), 0) FROM spend_holds WHERE account = @account AND expires > @now) AS account`,
    );
    this.#hold = db.prepare('INSERT INTO spend_holds (id, key, account, usd, expires) VALUES (?, ?, ?, ?, ?)');
    this.#dropHold = db.prepare('DELETE FROM spend_holds WHERE id = ?');
    this.#lapsed = db.prepare('DELETE FROM spend_holds WHERE expires <= ?');
    this.#renewHold = db.prepare('UPDATE spend_holds SET expires = ? WHERE id = ?');
    this.#rotate = db.prepare(
      `UPDATE client_keys SET old_secret_hash = secret_hash, old_secret_until = ?, secret_hash = ?
       WHERE name = ? AND revoked IS NULL`,
    );
  }

  add(key: ClientKey): Promise<boolean> {
    return this.#run.write(() => {
      const existing = this.#find.get(key.name);
      if (existing && existing.revoked === null) return false;
      this.#upsert.run(...keyColumns(key));
      return true;
    });
  }

  list(): Promise<ClientKey[]> {
    return this.#run.read(() => this.#db.prepare<[], KeyRow>('SELECT * FROM client_keys ORDER BY name').all().map(keyOfRow));
  }

  rehash(name: string, from: string, to: string): Promise<boolean> {
    return this.#run.write(
      () =>
        this.#db
          .prepare('UPDATE client_keys SET secret_hash = ? WHERE name = ? AND secret_hash = ? AND revoked IS NULL')
          .run(to, name, from).changes > 0,
    );
  }

  revoke(name: string, at: number): Promise<boolean> {
    return this.#run.write(() => this.#revoke.run(at, name).changes > 0);
  }

  update(name: string, changes: KeyChanges): Promise<boolean> {
    const columns = changedColumns(changes);
    return this.#run.write(() => {
      const existing = this.#find.get(name);
      if (!existing || existing.revoked !== null) return false;
      if (columns.length === 0) return true;
      const set = columns.map(([column]) => `${column} = ?`).join(', ');
      this.#db.prepare(`UPDATE client_keys SET ${set} WHERE name = ?`).run(...columns.map(([, value]) => value), name);
      return true;
    });
  }

  rotate(name: string, secretHash: string, graceUntil: number): Promise<boolean> {
    return this.#run.write(() => this.#rotate.run(graceUntil, secretHash, name).changes > 0);
  }

  async recordSpend(spends: readonly KeySpend[]): Promise<void> {
    if (spends.length === 0) return;
    await this.#run.write(() => this.#insertSpend(spends));
  }

  #insertSpend(spends: readonly KeySpend[]): void {
    for (const { at, key, account, endpoint, requests, components, billed, cost, fromStore, saved } of spends) {
      const id = this.#accounts.ensure(account);
      this.#spend.run(at, key, id, endpoint, requests, components, billed, toMicros(cost), fromStore, toMicros(saved));
    }
  }

  reserve(hold: SpendHold): Promise<HoldOutcome> {
    return this.#run.write(() => {
      const account = this.#accounts.ensure(hold.account);
      const [since, until] = monthOf(hold.now);
      this.#lapsed.run(hold.now);
      const spent = this.#spent.get({ key: hold.key, account, now: hold.now, since, until })!;
      const refused = holdRefusal(hold, spent.key, spent.account);
      if (refused) return refused;
      this.#hold.run(hold.id, hold.key, account, toMicros(hold.usd), hold.expires);
      return { held: true } as const;
    });
  }

  settle(id: string, spends: readonly KeySpend[]): Promise<void> {
    return this.#run.write(() => {
      this.#insertSpend(spends);
      this.#dropHold.run(id);
    });
  }

  async renewHolds(ids: readonly string[], expires: number): Promise<void> {
    if (ids.length === 0) return;
    await this.#run.write(() => {
      for (const id of ids) this.#renewHold.run(expires, id);
    });
  }

  spentSince(since: number): Promise<Map<string, number>> {
    return this.#run.read(() => {
      const rows = this.#db
        .prepare<[number], { key: string; cost: number }>('SELECT key, SUM(cost) AS cost FROM key_spend WHERE at >= ? GROUP BY key')
        .all(since);
      return new Map(rows.map((row) => [row.key, toUsd(row.cost)]));
    });
  }

  usage({ since = 0, account }: KeyUsageQuery): Promise<Usage> {
    return this.#run.read(() => {
      const id = account === undefined ? null : this.#accounts.find(account);
      if (id === undefined) return keyUsageOf([]);
      const groups = this.#db
        .prepare<{ since: number; account: number | null }, KeyGroup>(
          `SELECT ${KEY_USAGE_COLUMNS} FROM key_spend WHERE at >= @since AND (@account IS NULL OR account = @account) GROUP BY key`,
        )
        .all({ since, account: id });
      return keyUsageOf(groups);
    });
  }
}
