import type { PoolClient } from 'pg';
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
import { monthOf, toMicros, toUsd, type Usage } from '../spend.js';
import type { Database } from './database.js';
import { CLAIMS } from '../../policy/policy.js';

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

/** Schema 4, as the SQLite file's 7 (sqlite/keys.ts): keys changed in place, rotated, expiring, rated; budgets held by calls in flight. */
export const keyHoldsMigration = (s: string): string => `
  ALTER TABLE ${s}.client_keys ADD COLUMN expires bigint, ADD COLUMN rate_per_minute integer,
    ADD COLUMN old_secret_hash text, ADD COLUMN old_secret_until bigint;
  -- What a call in flight may still buy, held against its key's budget and its account's until the
  -- call is settled or the hold lapses. Read and written under the budgets' advisory lock.
  CREATE TABLE ${s}.spend_holds (
    id text PRIMARY KEY,
    key text NOT NULL,
    account integer NOT NULL,
    usd bigint NOT NULL,
    expires bigint NOT NULL
  );
  CREATE INDEX key_spend_by_key ON ${s}.key_spend (key, at);
`;

/** The key store in the PostgreSQL database: each method one statement, but a hold's (a transaction under the budgets' lock). */
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
      `INSERT INTO ${this.#s}.client_keys AS k (name, secret_hash, budget_month, endpoints, created, expires, rate_per_minute, revoked)
       VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)
       ON CONFLICT (name) DO UPDATE SET secret_hash = excluded.secret_hash, budget_month = excluded.budget_month,
         endpoints = excluded.endpoints, created = excluded.created, expires = excluded.expires,
         rate_per_minute = excluded.rate_per_minute, revoked = NULL, old_secret_hash = NULL, old_secret_until = NULL
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

  async update(name: string, changes: KeyChanges): Promise<boolean> {
    const columns = changedColumns(changes);
    const set = columns.length === 0 ? 'name = name' : columns.map(([column], i) => `${column} = $${i + 2}`).join(', ');
    const rows = await this.#db.query(`UPDATE ${this.#s}.client_keys SET ${set} WHERE name = $1 AND revoked IS NULL RETURNING name`, [
      name,
      ...columns.map(([, value]) => value),
    ]);
    return rows.length > 0;
  }

  async rotate(name: string, secretHash: string, graceUntil: number): Promise<boolean> {
    const rows = await this.#db.query(
      `UPDATE ${this.#s}.client_keys SET old_secret_hash = secret_hash, old_secret_until = $2, secret_hash = $1
       WHERE name = $3 AND revoked IS NULL RETURNING name`,
      [secretHash, graceUntil, name],
    );
    return rows.length > 0;
  }

  async recordSpend(spends: readonly KeySpend[]): Promise<void> {
    if (spends.length === 0) return;
    const { text, values } = await this.#spendInsert(spends);
    await this.#db.query(text, values);
  }

  /** The statement that inserts key spend rows, one array a column. */
  async #spendInsert(spends: readonly KeySpend[]): Promise<{ text: string; values: unknown[] }> {
    const accounts = await Promise.all(spends.map((spend) => this.#accountId(spend.account)));
    const column = <T>(pick: (spend: KeySpend, i: number) => T) => spends.map(pick);
    return {
      text: `INSERT INTO ${this.#s}.key_spend (at, key, account, endpoint, requests, components, billed, cost, rows, saved)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::integer[], $6::integer[], $7::integer[],
         $8::bigint[], $9::integer[], $10::bigint[])`,
      values: [
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
    };
  }

  async reserve(hold: SpendHold): Promise<HoldOutcome> {
    const s = this.#s;
    const account = await this.#accountId(hold.account);
    const [since, until] = monthOf(hold.now);
    return this.#db.transaction(async (client) => {
      await this.#lockBudgets(client);
      await client.query(`DELETE FROM ${s}.spend_holds WHERE expires <= $1`, [hold.now]);
      // One statement, so one snapshot: a hold settled meanwhile is counted as its spend or as its hold, never neither.
      const { rows } = await client.query<{ key: string; account: string }>(
        `SELECT (SELECT coalesce(sum(cost), 0) FROM ${s}.key_spend WHERE key = $1 AND at >= $3)
              + (SELECT coalesce(sum(usd), 0) FROM ${s}.spend_holds WHERE key = $1 AND expires > $5) AS key,
                (SELECT coalesce(sum(cost), 0) FROM ${s}.requests WHERE account = $2 AND at >= $3 AND at < $4)
              + (SELECT coalesce(sum(usd), 0) FROM ${s}.spend_holds WHERE account = $2 AND expires > $5) AS account`,
        [hold.key, account, since, until, hold.now],
      );
      const refused = holdRefusal(hold, Number(rows[0]!.key), Number(rows[0]!.account));
      if (refused) return refused;
      await client.query(`INSERT INTO ${s}.spend_holds (id, key, account, usd, expires) VALUES ($1, $2, $3, $4, $5)`, [
        hold.id,
        hold.key,
        account,
        toMicros(hold.usd),
        hold.expires,
      ]);
      return { held: true } as const;
    });
  }

  /** The budgets' lock: holds are decided one at a time, on every host; a stalled holder is cut off as the pacer's is. */
  async #lockBudgets(client: PoolClient): Promise<void> {
    await client.query(
      `SET LOCAL lock_timeout = '${CLAIMS.lockTimeoutMs}ms'; SET LOCAL idle_in_transaction_session_timeout = '${CLAIMS.idleInTransactionMs}ms'`,
    );
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`propdata budgets ${this.#s}`]);
  }

  async settle(id: string, spends: readonly KeySpend[]): Promise<void> {
    const insert = spends.length > 0 ? await this.#spendInsert(spends) : undefined;
    await this.#db.transaction(async (client) => {
      if (insert) await client.query(insert.text, insert.values);
      await client.query(`DELETE FROM ${this.#s}.spend_holds WHERE id = $1`, [id]);
    });
  }

  async renewHolds(ids: readonly string[], expires: number): Promise<void> {
    if (ids.length === 0) return;
    await this.#db.query(`UPDATE ${this.#s}.spend_holds SET expires = $1 WHERE id = ANY ($2::text[])`, [expires, ids]);
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
