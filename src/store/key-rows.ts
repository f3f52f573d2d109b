import type { ClientKey, HoldOutcome, KeyChanges, SpendHold } from './key-store.js';
import { toMicros, toUsd, usageOf, type RequestGroup, type ReuseGroup, type Usage } from './spend.js';

/** The client_keys table's row, as both drivers read it (sqlite/keys.ts, postgres/keys.ts). */
export interface KeyRow {
  name: string;
  secret_hash: string;
  budget_month: number | null;
  endpoints: string | null;
  created: number;
  revoked: number | null;
  expires: number | null;
  rate_per_minute: number | null;
  old_secret_hash: string | null;
  old_secret_until: number | null;
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
    ...(row.expires === null ? {} : { expires: row.expires }),
    ...(row.rate_per_minute === null ? {} : { ratePerMinute: row.rate_per_minute }),
    ...(row.old_secret_hash === null || row.old_secret_until === null
      ? {}
      : { previousSecretHash: row.old_secret_hash, previousValidUntil: row.old_secret_until }),
  };
}

/** The key's columns as both drivers write them (name, secret_hash, budget_month, endpoints, created, expires, rate_per_minute). */
export function keyColumns(key: ClientKey): [string, string, number | null, string | null, number, number | null, number | null] {
  return [
    key.name,
    key.secretHash,
    key.budgetMonth === undefined ? null : toMicros(key.budgetMonth),
    key.endpoints === undefined ? null : JSON.stringify(key.endpoints),
    key.created,
    key.expires ?? null,
    key.ratePerMinute ?? null,
  ];
}

/** The columns `keys set` changes, as both drivers write them: [column, value] for each member given. */
export function changedColumns(changes: KeyChanges): [string, number | string | null][] {
  const columns: [string, number | string | null][] = [];
  if (changes.budgetMonth !== undefined)
    columns.push(['budget_month', changes.budgetMonth === null ? null : toMicros(changes.budgetMonth)]);
  if (changes.endpoints !== undefined) columns.push(['endpoints', changes.endpoints === null ? null : JSON.stringify(changes.endpoints)]);
  if (changes.expires !== undefined) columns.push(['expires', changes.expires]);
  if (changes.ratePerMinute !== undefined) columns.push(['rate_per_minute', changes.ratePerMinute]);
  return columns;
}

/** Which budget refuses a hold, given what the key and the account have spent and hold (micro-dollars); undefined: it fits. */
export function holdRefusal(hold: SpendHold, keySpent: number, accountSpent: number): HoldOutcome | undefined {
  const usd = toMicros(hold.usd);
  if (hold.keyBudget !== undefined && keySpent + usd > toMicros(hold.keyBudget)) return { refused: 'key', spent: toUsd(keySpent) };
  if (hold.accountBudget !== undefined && accountSpent + usd > toMicros(hold.accountBudget)) {
    return { refused: 'account', spent: toUsd(accountSpent) };
  }
  return undefined;
}

/** The usage report from one summed row per key (requests and reuse in one table). */
export function keyUsageOf(groups: readonly KeyGroup[]): Usage {
  const reused: ReuseGroup[] = groups.map(({ key, first, rows, saved }) => ({ key, first, rows, saved }));
  return usageOf('key', groups, reused);
}

/** The SQL both drivers sum a key's spend with (one row per key). */
export const KEY_USAGE_COLUMNS = `key, MIN(at) AS first, SUM(requests) AS requests, SUM(components) AS components,
  SUM(billed) AS billed, SUM(cost) AS cost, SUM(rows) AS rows, SUM(saved) AS saved`;
