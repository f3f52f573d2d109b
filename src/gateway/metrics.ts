import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { SpendFigures } from './spend-book.js';
import type { CallSpend } from './upstream.js';

/** The path Prometheus scrapes (with the admin key, user admin). */
export const METRICS_PATH = '/metrics';

/** Upper bounds of the request-duration histogram, seconds: from a store hit to a wait at --max-wait's 50 s. */
const DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 25, 50];

type Labels = Record<string, string>;

/** A label's value as the text format writes it: backslash, double quote and line feed escaped. */
const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

const labelText = (labels: Labels) => {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabel(value)}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
};

/** Counters by a label set, kept as the label text (insertion order: stable between scrapes). */
class Counter {
  readonly #values = new Map<string, number>();
  add(labels: Labels, by = 1): void {
    const text = labelText(labels);
    this.#values.set(text, (this.#values.get(text) ?? 0) + by);
  }
  /** Each sample as it follows its family's name: labels, then the value. */
  lines(): string[] {
    return [...this.#values].map(([labels, value]) => `${labels} ${value}`);
  }
}

/** A family: its name, type, help, and its samples as they follow the name. */
type Family = [name: string, type: 'counter' | 'gauge' | 'histogram', help: string, lines: string[]];

/** What a scrape reads of the gateway's parts as they stand. */
export interface MetricsNow {
  windows: readonly ReportedWindow[];
  waiting: ReadonlyMap<string, number>;
  figures: SpendFigures;
  budgets: ReadonlyMap<string, number | undefined>;
  connections: number;
  heldLogins: number;
  inFlight: number;
  claimsHeld: number;
}

/**
 * The gateway's figures in Prometheus' text format (0.0.4): counters since it started (requests
 * by key and status, what calls bought and took from the store, a histogram of request times) and
 * gauges read at the scrape (spend this month per key, the account's windows, components waiting
 * for their turn, connections, failed logins held back, calls in flight). Never a credential nor
 * an item; keys appear by name.
 */
export class GatewayMetrics {
  readonly #requests = new Counter();
  readonly #components = new Counter();
  readonly #bought = new Counter();
  readonly #fromStore = new Counter();
  readonly #buckets = DURATION_BUCKETS.map(() => 0);
  #durationCount = 0;
  #durationSum = 0;

  /** A request answered: `key` '' before one was known. */
  answered(key: string | undefined, status: number, elapsedMs: number): void {
    this.#requests.add({ key: key ?? '', status: String(status) });
    const seconds = elapsedMs / 1000;
    DURATION_BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) this.#buckets[i]! += 1;
    });
    this.#durationCount += 1;
    this.#durationSum += seconds;
  }

  /** A call of `key` is over: what it bought and what the store answered. */
  called(key: string, spend: CallSpend): void {
    this.#components.add({ key }, spend.components);
    this.#bought.add({ key }, spend.requests);
    this.#fromStore.add({ key }, spend.fromStore);
  }

  text(now: MetricsNow): string {
    const out: string[] = [];
    for (const [name, type, help, lines] of [...this.#counted(), ...gaugesOf(now)]) {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...lines.map((line) => `${name}${line}`));
    }
    return `${out.join('\n')}\n`;
  }

  /** The counters since the gateway started: each family's name, type, help, and its samples after the name. */
  #counted(): Family[] {
    return [
      [
        'propdata_gateway_requests_total',
        'counter',
        'Requests answered, by key (empty before one was known) and HTTP status.',
        this.#requests.lines(),
      ],
      ['propdata_gateway_components_bought_total', 'counter', 'Components bought from the service, by key.', this.#components.lines()],
      ['propdata_gateway_service_requests_total', 'counter', 'Requests that reached the service, by key.', this.#bought.lines()],
      [
        'propdata_gateway_items_from_store_total',
        'counter',
        'Items answered from the store instead of bought, by key.',
        this.#fromStore.lines(),
      ],
      [
        'propdata_gateway_request_duration_seconds',
        'histogram',
        'Time from a request to its answer, waits for the rate limit included.',
        this.#histogram(),
      ],
    ];
  }

  #histogram(): string[] {
    return [
      ...DURATION_BUCKETS.map((bound, i) => `_bucket{le="${bound}"} ${this.#buckets[i]}`),
      `_bucket{le="+Inf"} ${this.#durationCount}`,
      `_sum ${this.#durationSum}`,
      `_count ${this.#durationCount}`,
    ];
  }
}

/** The gauges, read at the scrape from the gateway's parts. */
function gaugesOf(now: MetricsNow): Family[] {
  const byKey = (values: Iterable<[string, number]>) => [...values].map(([key, value]) => `${labelText({ key })} ${value}`);
  const windows = (pick: (window: ReportedWindow) => number) =>
    now.windows.map((window) => `${labelText({ period_seconds: String(window.periodSeconds) })} ${pick(window)}`);
  const budgets = [...now.budgets].flatMap(([key, usd]): [string, number][] => (usd === undefined ? [] : [[key, usd]]));
  return [
    [
      'propdata_gateway_spend_month_usd',
      'gauge',
      'USD at list price each key spent this UTC month, every gateway on the store.',
      byKey(now.figures.month),
    ],
    ['propdata_gateway_budget_month_usd', 'gauge', "Each key's month budget, for keys that have one.", byKey(budgets)],
    [
      'propdata_gateway_account_spend_month_usd',
      'gauge',
      'USD at list price the account spent this UTC month, every job and gateway on the store.',
      [` ${now.figures.accountMonth}`],
    ],
    ['propdata_gateway_window_limit', 'gauge', "Components each of the account's windows allows.", windows((window) => window.limit)],
    [
      'propdata_gateway_window_used',
      'gauge',
      "Components used of each of the account's windows, as the service last stated.",
      windows((window) => Math.max(0, window.limit - window.remaining)),
    ],
    ['propdata_gateway_waiting_components', 'gauge', 'Components waiting for their turn at the windows, by key.', byKey(now.waiting)],
    [
      'propdata_gateway_calls_in_flight',
      'gauge',
      'Data requests being answered now (each holding the claims of what it buys).',
      [` ${now.inFlight}`],
    ],
    [
      'propdata_gateway_claims_held',
      'gauge',
      "Sections the gateway's calls hold claims on now (bought once, whoever else asks).",
      [` ${now.claimsHeld}`],
    ],
    ['propdata_gateway_connections', 'gauge', 'Client connections open.', [` ${now.connections}`]],
    ['propdata_gateway_failed_logins_held', 'gauge', 'Failed logins whose 401 is being held back now.', [` ${now.heldLogins}`]],
  ];
}
