import type { ClientKey } from '../store/key-store.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { ActivitySnapshot, ClientActivity, Refusal } from './activity.js';
import type { SpendFigures } from './spend-book.js';

/** The path of the status as JSON (the page reads it every second); the page itself is at `/`. */
export const STATUS_PATH = '/__gateway/status';

/**
 * The header the status page sends with its reads: a 401 to it carries no challenge, so that the
 * browser does not open a login dialog of its own over the page's (which asks for the admin key).
 */
export const PAGE_HEADER = 'x-propdata-status-page';

/** A window of the account, filling: what the status page draws as a bar. */
export interface WindowStatus {
  periodSeconds: number;
  limit: number;
  used: number;
  remaining: number;
  /** Epoch ms. */
  resetAt: number;
}

export interface KeySpendStatus {
  key: string;
  today: number;
  month: number;
  /** Null: no budget of its own. */
  budgetMonth: number | null;
  /** Components it is waiting for, for the rate limit. */
  waiting: number;
}

/** What `GET /__gateway/status` answers (with the admin key): the status page's data, as numbers. */
export interface GatewayStatus {
  now: number;
  startedAt: number;
  /** The account's windows as the gateway last heard of them: none before the service stated any. */
  windows: WindowStatus[];
  clients: ClientActivity[];
  spend: { keys: KeySpendStatus[]; accountMonth: number; maxCostMonth: number | null };
  store: { items: number; fromStore: number; hitRate: number | null };
  refusals: readonly Refusal[];
  /** Client addresses whose logins are being slowed down. */
  slowedAddresses: number;
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

export interface StatusParts {
  now: number;
  startedAt: number;
  windows: readonly ReportedWindow[];
  waiting: ReadonlyMap<string, number>;
  activity: ActivitySnapshot;
  figures: SpendFigures;
  keys: ReadonlyMap<string, ClientKey>;
  maxCostMonth: number | undefined;
  slowedAddresses: number;
}

/** The status from what the gateway's parts know: every live key, and any other that spent this month. */
export function gatewayStatus(parts: StatusParts): GatewayStatus {
  const { figures, keys, activity } = parts;
  const names = [...new Set([...keys.keys(), ...figures.month.keys()])].sort();
  return {
    now: parts.now,
    startedAt: parts.startedAt,
    windows: parts.windows.map((window) => ({
      periodSeconds: window.periodSeconds,
      limit: window.limit,
      used: Math.min(window.limit, Math.max(0, window.limit - window.remaining)),
      remaining: Math.max(0, window.remaining),
      resetAt: window.resetAt,
    })),
    clients: activity.active,
    spend: {
      keys: names.map((key) => ({
        key,
        today: cents(figures.today.get(key) ?? 0),
        month: cents(figures.month.get(key) ?? 0),
        budgetMonth: keys.get(key)?.budgetMonth ?? null,
        waiting: parts.waiting.get(key) ?? 0,
      })),
      accountMonth: cents(figures.accountMonth),
      maxCostMonth: parts.maxCostMonth ?? null,
    },
    store: {
      items: activity.items,
      fromStore: activity.fromStore,
      hitRate: activity.items > 0 ? Math.round((activity.fromStore / activity.items) * 1000) / 1000 : null,
    },
    refusals: activity.refusals,
    slowedAddresses: parts.slowedAddresses,
  };
}
