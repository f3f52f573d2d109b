import type { PoolClient } from 'pg';
import { identityKey } from '../identity-key.js';

/** Items keyed a batch a round trip while migrating: a statement's arrays stay a few hundred kilobytes. */
const BATCH = 5_000;

/** The claims (a few: those of the requests in flight) named by their items' keys; two that are then one claim are one. */
async function keyClaims(client: PoolClient, s: string): Promise<void> {
  const { rows } = await client.query<{ identity: string }>(`SELECT DISTINCT identity FROM ${s}.claims`);
  await client.query(`
    ALTER TABLE ${s}.claims ADD COLUMN key bigint;
    ALTER TABLE ${s}.claims DROP CONSTRAINT claims_pkey;
  `);
  await client.query(
    `UPDATE ${s}.claims c SET key = x.key FROM unnest($1::text[], $2::bigint[]) AS x(identity, key) WHERE c.identity = x.identity`,
    [rows.map((row) => row.identity), rows.map((row) => identityKey(row.identity))],
  );
  await client.query(`
    DELETE FROM ${s}.claims c USING ${s}.claims d
    WHERE d.account = c.account AND d.key = c.key AND d.endpoint = c.endpoint AND d.params = c.params AND d.ctid > c.ctid;
    ALTER TABLE ${s}.claims DROP COLUMN identity, ALTER COLUMN key SET NOT NULL, ADD PRIMARY KEY (account, key, endpoint, params);
  `);
}

/**
 * Schema 6: an item is found by its key (store/identity-key.ts, computed here as every statement
 * computes it), and a claim names its item by key, as in the SQLite file since its schemas 5 and 6.
 * The items' index on (account, key) holds 16 bytes an item where the one it replaces held a
 * second copy of its identity, 100 bytes or more, and a claim's row and index entry shrink alike.
 * Every lookup of an item by key compares the identity too; an item whose key another identity of
 * its account already has is not kept (1 in 2^53 a pair: bought again when asked, never answered
 * with the other's sections). Two items of a store made before this schema that share a key keep
 * the newer (its sections with it): the older is bought again when asked.
 */
export const itemKeysMigration = {
  async run(client: PoolClient, s: string): Promise<void> {
    // The identities' index goes first: the keys' updates then write no entry into it.
    await client.query(`ALTER TABLE ${s}.items ADD COLUMN key bigint, DROP CONSTRAINT items_account_identity_key`);
    for (let after = 0; ;) {
      const { rows } = await client.query<{ id: number; identity: string }>(
        `SELECT id, identity FROM ${s}.items WHERE id > $1 ORDER BY id LIMIT ${BATCH}`,
        [after],
      );
      if (rows.length === 0) break;
      await client.query(`UPDATE ${s}.items i SET key = x.key FROM unnest($1::bigint[], $2::bigint[]) AS x(id, key) WHERE i.id = x.id`, [
        rows.map((row) => row.id),
        rows.map((row) => identityKey(row.identity)),
      ]);
      after = rows.at(-1)!.id;
    }
    await keyClaims(client, s);
    await client.query(`
      WITH gone AS (
        DELETE FROM ${s}.items i USING ${s}.items j WHERE j.account = i.account AND j.key = i.key AND j.id > i.id RETURNING i.id
      )
      DELETE FROM ${s}.sections WHERE item IN (SELECT id FROM gone);
      ALTER TABLE ${s}.items ALTER COLUMN key SET NOT NULL;
      CREATE UNIQUE INDEX items_by_key ON ${s}.items (account, key);
    `);
  },
};
