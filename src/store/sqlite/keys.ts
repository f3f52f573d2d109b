import type { Database, Statement } from 'better-sqlite3';
import { KEY_USAGE_COLUMNS, keyColumns, keyOfRow, keyUsageOf, type KeyGroup, type KeyRow } from '../key-rows.js';
import type { ClientKey, KeySpend, KeyStore, KeyUsageQuery } from '../key-store.js';
import type { NameIds } from '../name-ids.js';
import { toMicros, toUsd, type Usage } from '../spend.js';

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
  readonly #upsert: Statement<[string, string, number | null, string | null, number]>;
  readonly #revoke: Statement<[number, string]>;
  readonly #spend: Statement<[number, string, number, string, number, number, number, number, number, number]>;

  constructor(db: Database, accounts: NameIds, run: Transactions) {
    this.#db = db;
    this.#accounts = accounts;
    this.#run = run;
    this.#find = db.prepare<[string], KeyRow>('SELECT * FROM client_keys WHERE name = ?');
    this.#upsert = db.prepare(
      `INSERT INTO client_keys (name, secret_hash, budget_month, endpoints, created, revoked) VALUES (?, ?, ?, ?, ?, NULL)
       ON CONFLICT (name) DO UPDATE SET secret_hash = excluded.secret_hash, budget_month = excluded.budget_month,
         endpoints = excluded.endpoints, created = excluded.created, revoked = NULL`,
    );
    this.#revoke = db.prepare('UPDATE client_keys SET revoked = ? WHERE name = ? AND revoked IS NULL');
    this.#spend = db.prepare(
      'INSERT INTO key_spend (at, key, account, endpoint, requests, components, billed, cost, rows, saved) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
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

  async recordSpend(spends: readonly KeySpend[]): Promise<void> {
    if (spends.length === 0) return;
    await this.#run.write(() => {
      for (const { at, key, account, endpoint, requests, components, billed, cost, fromStore, saved } of spends) {
        const id = this.#accounts.ensure(account);
        this.#spend.run(at, key, id, endpoint, requests, components, billed, toMicros(cost), fromStore, toMicros(saved));
      }
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
