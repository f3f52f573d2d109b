import { KEY_USAGE_COLUMNS, keyColumns, keyOfRow, keyUsageOf, type KeyGroup, type KeyRow } from '../key-rows.js';
import type { ClientKey, KeySpend, KeyStore, KeyUsageQuery } from '../key-store.js';
import { toMicros, toUsd, type Usage } from '../spend.js';
import type { Database } from './database.js';

/** Schema 2 (postgres/schema.ts): a gateway's client keys and their spend, as in the SQLite file (sqlite/keys.ts). */
export const keysMigration = (s: string): string => `
  -- The client keys of gateways (propdata serve) sharing this store: the secret as scrypt hashed it
  -- (never the secret), a month budget in micro-dollars, the endpoints it may call (JSON; NULL:
  -- every one). A revoked key stays, so that its spend keeps its name.
  CREATE TABLE ${s}.client_keys (
    name text PRIMARY KEY,
    secret_hash text NOT NULL,
    budget_month bigint,
    endpoints text,
    created bigint NOT NULL,
    revoked bigint
  );

  -- What each key's calls bought and took from the store, summed by a gateway per key and endpoint
  -- between two of its flushes. Times are the gateways' own (as a request's in the spend log).
  CREATE TABLE ${s}.key_spend (
    at bigint NOT NULL,
    key text NOT NULL,
    account integer NOT NULL,
    endpoint text NOT NULL,
    requests integer NOT NULL,
    components integer NOT NULL,
    billed integer NOT NULL,
    cost bigint NOT NULL,
    rows integer NOT NULL,
    saved bigint NOT NULL
  );
  CREATE INDEX key_spend_by_time ON ${s}.key_spend (at);
`;

/** The key store in the PostgreSQL database: each method one statement. */
export class PostgresKeyStore implements KeyStore {
  readonly #db: Database;
  readonly #s: string;
  readonly #accountId: (name: string) => Promise<number>;

  constructor(db: Database, s: string, accountId: (name: string) => Promise<number>) {
    this.#db = db;
    this.#s = s;
    this.#accountId = accountId;
  }

  async add(key: ClientKey): Promise<boolean> {
    // The conflict's update applies only to a revoked key: a live one returns no row.
    const rows = await this.#db.query(
      `INSERT INTO ${this.#s}.client_keys AS k (name, secret_hash, budget_month, endpoints, created, revoked)
       VALUES ($1, $2, $3, $4, $5, NULL)
       ON CONFLICT (name) DO UPDATE SET secret_hash = excluded.secret_hash, budget_month = excluded.budget_month,
         endpoints = excluded.endpoints, created = excluded.created, revoked = NULL
       WHERE k.revoked IS NOT NULL
       RETURNING name`,
      keyColumns(key),
    );
    return rows.length > 0;
  }

  async list(): Promise<ClientKey[]> {
    const rows = await this.#db.query<KeyRow>(`SELECT * FROM ${this.#s}.client_keys ORDER BY name COLLATE "C"`);
    return rows.map(keyOfRow);
  }

  async rehash(name: string, from: string, to: string): Promise<boolean> {
    const rows = await this.#db.query(
      `UPDATE ${this.#s}.client_keys SET secret_hash = $1 WHERE name = $2 AND secret_hash = $3 AND revoked IS NULL RETURNING name`,
      [to, name, from],
    );
    return rows.length > 0;
  }

  async revoke(name: string, at: number): Promise<boolean> {
    const rows = await this.#db.query(`UPDATE ${this.#s}.client_keys SET revoked = $1 WHERE name = $2 AND revoked IS NULL RETURNING name`, [
      at,
      name,
    ]);
    return rows.length > 0;
  }

  async recordSpend(spends: readonly KeySpend[]): Promise<void> {
    if (spends.length === 0) return;
    const accounts = await Promise.all(spends.map((spend) => this.#accountId(spend.account)));
    const column = <T>(pick: (spend: KeySpend, i: number) => T) => spends.map(pick);
    await this.#db.query(
      `INSERT INTO ${this.#s}.key_spend (at, key, account, endpoint, requests, components, billed, cost, rows, saved)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::integer[], $6::integer[], $7::integer[],
         $8::bigint[], $9::integer[], $10::bigint[])`,
      [
        column((spend) => spend.at),
        column((spend) => spend.key),
        column((_, i) => accounts[i]),
        column((spend) => spend.endpoint),
        column((spend) => spend.requests),
        column((spend) => spend.components),
        column((spend) => spend.billed),
        column((spend) => toMicros(spend.cost)),
        column((spend) => spend.fromStore),
        column((spend) => toMicros(spend.saved)),
      ],
    );
  }

  async spentSince(since: number): Promise<Map<string, number>> {
    const rows = await this.#db.query<{ key: string; cost: number }>(
      `SELECT key, sum(cost) AS cost FROM ${this.#s}.key_spend WHERE at >= $1 GROUP BY key`,
      [since],
    );
    return new Map(rows.map((row) => [row.key, toUsd(row.cost)]));
  }

  async usage({ since = 0, account }: KeyUsageQuery): Promise<Usage> {
    const s = this.#s;
    // An account named but unknown matches no row (its id is null).
    const groups = await this.#db.query<KeyGroup>(
      `SELECT ${KEY_USAGE_COLUMNS} FROM ${s}.key_spend
       WHERE at >= $1 AND ($2::text IS NULL OR account = (SELECT id FROM ${s}.accounts WHERE name = $2)) GROUP BY key`,
      [since, account ?? null],
    );
    return keyUsageOf(groups);
  }
}
