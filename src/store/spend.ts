/** A request that reached the service (whatever its status: a 429 or a 5xx reached it too). */
export interface RequestRecord {
  /** With `run`, what identifies the request (Store.record applies it once): a run gives each of its requests a time of its own. */
  at: number;
  run: string;
  account: string;
  /** What was called: an endpoint, or an mget's components joined with commas. */
  endpoint: string;
  items: number;
  components: number;
  /** HTTP status. */
  status: number;
  /** Sections answered api_code 0: the ones billed. */
  billed: number;
  /** USD at list price of the billed sections. */
  cost: number;
}

/** Rows a run answered from the store instead of sending them. */
export interface ReuseRecord {
  at: number;
  run: string;
  account: string;
  endpoint: string;
  rows: number;
  /** USD at list price that sending them would have cost. */
  saved: number;
}

export const USAGE_GROUPINGS = ['day', 'month', 'endpoint', 'run'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];
/** What a usage report's rows total: a grouping of the spend log, or a gateway's client key (KeyStore.usage). */
export type UsageRows = UsageGrouping | 'key';

export interface UsageFigures {
  requests: number;
  components: number;
  billed: number;
  cost: number;
  fromStore: number;
  saved: number;
}

/** Totals and one row per day, month (UTC), endpoint or run, in time order (endpoints by name). */
export interface Usage {
  total: UsageFigures;
  rows: (UsageFigures & { key: string })[];
}

export interface UsageQuery {
  by: UsageGrouping;
  /** Epoch ms; absent: everything recorded. */
  since?: number;
  /** Absent: every account. */
  account?: string;
}

/** Requests summed per group (a day, month, endpoint or run), as a driver's query gives them; money in micro-dollars. */
export interface RequestGroup {
  key: string;
  /** The group's first request: runs are listed in time order. */
  first: number;
  requests: number;
  components: number;
  billed: number;
  cost: number;
}

/** Rows answered from the store, summed per group; money in micro-dollars. */
export interface ReuseGroup {
  key: string;
  first: number;
  rows: number;
  saved: number;
}

/** Money is kept as integer micro-dollars: sums of many list prices stay exact. */
export const toMicros = (usd: number): number => Math.round(usd * 1e6);
export const toUsd = (micros: number): number => micros / 1e6;

const emptyFigures = (): UsageFigures => ({ requests: 0, components: 0, billed: 0, cost: 0, fromStore: 0, saved: 0 });

/** The UTC calendar month holding `now`: its first millisecond and the next month's. */
export function monthOf(now: number): [number, number] {
  const date = new Date(now);
  return [Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)];
}

/**
 * The usage report from the groups a driver summed: one row per key (requests and reuse side by
 * side), in time order for runs and by name otherwise, and the totals. Money is summed in
 * micro-dollars and converted once.
 */
export function usageOf(by: UsageRows, requests: readonly RequestGroup[], reused: readonly ReuseGroup[]): Usage {
  const rows = new Map<string, UsageFigures & { key: string; first: number }>();
  const rowOf = (key: string, first: number) => {
    const row = rows.get(key) ?? { key, first, ...emptyFigures() };
    row.first = Math.min(row.first, first);
    rows.set(key, row);
    return row;
  };
  const total = emptyFigures();
  for (const group of requests) {
    const row = rowOf(group.key, group.first);
    row.requests = group.requests;
    row.components = group.components;
    row.billed = group.billed;
    row.cost = toUsd(group.cost);
    total.requests += group.requests;
    total.components += group.components;
    total.billed += group.billed;
    total.cost += group.cost;
  }
  for (const group of reused) {
    const row = rowOf(group.key, group.first);
    row.fromStore = group.rows;
    row.saved = toUsd(group.saved);
    total.fromStore += group.rows;
    total.saved += group.saved;
  }
  total.cost = toUsd(total.cost);
  total.saved = toUsd(total.saved);
  const ordered = [...rows.values()].sort((a, b) => (by === 'run' ? a.first - b.first : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { total, rows: ordered.map(({ first: _first, ...row }) => row) };
}
