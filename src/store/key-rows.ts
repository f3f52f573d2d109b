import type { ClientKey } from './key-store.js';
import { toMicros, toUsd, usageOf, type RequestGroup, type ReuseGroup, type Usage } from './spend.js';

/** The client_keys table's row, as both drivers read it (sqlite/keys.ts, postgres/keys.ts). */
export interface KeyRow {
  name: string;
  secret_hash: string;
  budget_month: number | null;
  endpoints: string | null;
  created: number;
  revoked: number | null;
}

/** A key's spend summed over the rows a query selects: a spend log group and its reuse in one. */
export type KeyGroup = RequestGroup & { rows: number; saved: number };

/** A key as the contract gives it: absent members rather than nulls. */
export function keyOfRow(row: KeyRow): ClientKey {
  return {
    name: row.name,
    secretHash: row.secret_hash,
    ...(row.budget_month === null ? {} : { budgetMonth: toUsd(row.budget_month) }),
    ...(row.endpoints === null ? {} : { endpoints: JSON.parse(row.endpoints) as string[] }),
    created: row.created,
    ...(row.revoked === null ? {} : { revoked: row.revoked }),
  };
}

/** The key's columns as both drivers write them. */
export function keyColumns(key: ClientKey): [string, string, number | null, string | null, number] {
  return [
    key.name,
    key.secretHash,
    key.budgetMonth === undefined ? null : toMicros(key.budgetMonth),
    key.endpoints === undefined ? null : JSON.stringify(key.endpoints),
    key.created,
  ];
}

/** The usage report from one summed row per key (requests and reuse in one table). */
export function keyUsageOf(groups: readonly KeyGroup[]): Usage {
  const reused: ReuseGroup[] = groups.map(({ key, first, rows, saved }) => ({ key, first, rows, saved }));
  return usageOf('key', groups, reused);
}

/** The SQL both drivers sum a key's spend with (one row per key). */
export const KEY_USAGE_COLUMNS = `key, MIN(at) AS first, SUM(requests) AS requests, SUM(components) AS components,
  SUM(billed) AS billed, SUM(cost) AS cost, SUM(rows) AS rows, SUM(saved) AS saved`;
