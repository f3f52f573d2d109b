import type { SendableItem } from '../batching/batch.js';
import { Deduplicator } from '../batching/deduplicator.js';
import type { Connection } from '../config/connection.js';
import type { Chunk } from '../model/chunk.js';
import { keepsAnswer, type OutputRecord } from '../model/record.js';
import type { QueryTarget } from '../model/query-target.js';
import { billedCost } from '../pipeline/pricing.js';
import type { Exchange } from '../pipeline/send-batch.js';
import { applyEntry } from '../store/entry.js';
import type { RequestRecord, Store } from '../store/index.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { SharedPacer } from '../throttle/shared-pacer.js';
import { commandLine } from './resume-command.js';

/** An item's key in the store: the same item under another path (an mget, a version) is another question. */
export function storeKeyOf(target: QueryTarget, item: SendableItem): string {
  return `${target.path}|${Deduplicator.keyOf(item.item)}`;
}

/** A run's name in the spend log: when it started, its process, and its command (`usage --by run` shows it). */
export function runName(now: number, argv: readonly string[]): string {
  return `${new Date(now).toISOString()} ${process.pid} ${commandLine(argv)}`;
}

/** What was called, as the spend log names it: an endpoint, or an mget's sections joined with commas. */
function endpointOf(target: QueryTarget, sectionKeys: readonly string[]): string {
  return target.sections.length > 0 ? sectionKeys.join(',') : target.path;
}

/** What a request is recorded as in the spend log. */
export interface SpendSettings {
  account: string;
  run: string;
  target: QueryTarget;
  sectionKeys: readonly string[];
  /** USD at list price per section name. */
  prices: Readonly<Record<string, number>>;
}

/** One request's spend record: every section the run asks for is counted when billed, at its list price (0 outside the catalog). */
export function requestRecordOf(spend: SpendSettings, exchange: Exchange, at: number): RequestRecord {
  const sectionPrices = Object.fromEntries(spend.sectionKeys.map((name) => [name, spend.prices[name] ?? 0]));
  const { billed, cost } = billedCost(exchange.chunks, sectionPrices);
  return {
    at,
    run: spend.run,
    account: spend.account,
    endpoint: endpointOf(spend.target, spend.sectionKeys),
    items: exchange.items,
    components: exchange.components,
    status: exchange.status,
    billed,
    cost,
  };
}

/** What a batch run asks of the local store: reuse, remembering, spend, and the windows. */
export interface RunStore {
  /** The kept answer for this item when every section is younger than --max-age; undefined without --max-age. */
  reuse(item: SendableItem): Chunk | undefined;
  /** Keeps the answers of a part (errors are never kept), and records the request's spend. */
  remember(items: readonly { prepared: SendableItem }[], records: readonly OutputRecord[]): void;
  /** Records what a request cost and what the service said of its windows. */
  record(exchange: Exchange): void;
  /** The windows the service last reported for this account, if still fresh. */
  windows(): ReportedWindow[] | undefined;
  /** The pacer shared with the account's other runs on this machine (RateLimiter.shareWith). */
  pacer(): SharedPacer;
  /** Records the rows answered from the store and what they would have cost; closes the file. */
  close(fromStore: number, pricePerItem: number): void;
  /** Month-to-date cost of the account at list price, for --max-cost-month. */
  monthToDateCost(): number;
}

export interface RunStoreSettings {
  path: string;
  connection: Connection;
  sandbox: boolean;
  target: QueryTarget;
  sectionKeys: readonly string[];
  /** --max-age in ms; undefined: nothing is reused. */
  maxAgeMs: number | undefined;
  /** USD at list price per section name, for the spend records. */
  prices: Readonly<Record<string, number>>;
  now: () => number;
  /** The run's arguments, for its name in the spend log. */
  argv: readonly string[];
}

/**
 * The local store for one batch run, loaded only when a run uses it (better-sqlite3 is a native
 * module: `--help` and one-offs never load it). Everything is filed under the account, so test
 * keys, the sandbox and live answers never mix.
 */
export async function openRunStore(settings: RunStoreSettings): Promise<RunStore> {
  const { openStore, accountOf } = await import('../store/index.js');
  const store: Store = await openStore(settings.path);
  const account = accountOf(settings.connection, settings.sandbox);
  const answers = store.answers(account);
  const run = runName(settings.now(), settings.argv);
  const pacer = store.pacer(account, run);
  const spend: SpendSettings = { account, run, target: settings.target, sectionKeys: settings.sectionKeys, prices: settings.prices };
  const keyOf = (item: SendableItem) => storeKeyOf(settings.target, item);
  return {
    reuse(item) {
      if (settings.maxAgeMs === undefined) return undefined;
      return answers.get(keyOf(item), settings.sectionKeys, { maxAgeMs: settings.maxAgeMs, now: settings.now(), meta: item.item.meta });
    },
    remember(items, records) {
      const at = settings.now();
      store.transaction(() => {
        items.forEach(({ prepared }, i) => {
          const record = records[i];
          if (keepsAnswer(record)) answers.put(keyOf(prepared), settings.sectionKeys, record.chunk, at);
        });
      });
    },
    record(exchange) {
      // The windows in this machine's time, as the limiter paced by them: the next run starts from them.
      applyEntry(store, { request: requestRecordOf(spend, exchange, settings.now()), windows: exchange.windows });
    },
    windows: () => store.loadWindows(account, settings.now()),
    pacer: () => pacer,
    monthToDateCost: () => store.monthToDateCost(account, settings.now()),
    close(fromStore, pricePerItem) {
      try {
        // This run asks for nothing more: its share of the windows goes to the others at once.
        pacer.leave(settings.now());
        if (fromStore > 0)
          store.recordFromStore({
            at: settings.now(),
            run,
            account,
            endpoint: endpointOf(settings.target, settings.sectionKeys),
            rows: fromStore,
            saved: fromStore * pricePerItem,
          });
      } finally {
        store.close();
      }
    },
  };
}
