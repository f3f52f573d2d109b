import type { PendingItem, SendableItem } from '../batching/batch.js';
import type { Connection } from '../config/connection.js';
import type { Chunk } from '../model/chunk.js';
import { joinChunk, splitChunk } from '../model/chunk-frame.js';
import type { QueryTarget } from '../model/query-target.js';
import { keepsAnswer } from '../model/record.js';
import { itemRefOf } from '../model/section-refs.js';
import { billedCost } from '../pipeline/pricing.js';
import { succeeded, type Exchange } from '../pipeline/send-batch.js';
import type { FoundItem, KeptAnswer, RequestRecord, Store, StoreEntry, StoreProblems } from '../store/index.js';
import type { ReportedWindow } from '../throttle/rate-headers.js';
import type { SharedPacer } from '../throttle/shared-pacer.js';

/** A run's name in the spend log: when it started, and its process. */
export function runName(now: number): string {
  return `${new Date(now).toISOString()} ${process.pid}`;
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
function requestRecordOf(spend: SpendSettings, exchange: Exchange, at: number): RequestRecord {
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

/**
 * The answers a response brought, as the store files them: each record that carries one
 * (keepsAnswer), split into its frame and its sections, under the item's identity. A chunk that
 * cannot be rebuilt faithfully from its parts (splitChunk) is not kept.
 */
function keptAnswersOf(spend: SpendSettings, exchange: Exchange, part: readonly PendingItem[]): KeptAnswer[] {
  const { chunks } = exchange;
  if (chunks === undefined || chunks.length !== part.length) return [];
  const answers: KeptAnswer[] = [];
  succeeded(part, chunks, spend.sectionKeys).forEach((record, i) => {
    const split = keepsAnswer(record) ? splitChunk(record.chunk, spend.sectionKeys) : undefined;
    if (!split) return;
    const ref = itemRefOf(spend.target, part[i]!.prepared.item);
    answers.push({
      item: ref.item,
      frame: split.frame,
      sections: ref.sections.map((section, j) => ({ ref: section, body: split.sections[j] })),
    });
  });
  return answers;
}

/** What one request leaves in the store: its spend, the windows its answer stated, the answers it brought. */
export function storeEntryOf(spend: SpendSettings, exchange: Exchange, part: readonly PendingItem[], at: number): StoreEntry {
  return { request: requestRecordOf(spend, exchange, at), windows: exchange.windows, answers: keptAnswersOf(spend, exchange, part) };
}

/** The chunk the service would send for the item, rebuilt from what the store found, when it found every section; else undefined. */
export function chunkFromStore(found: FoundItem | undefined, sectionKeys: readonly string[], meta: unknown): Chunk | undefined {
  if (!found?.frame || found.sections.some((section) => section === undefined)) return undefined;
  return joinChunk(
    found.frame,
    sectionKeys,
    found.sections.map((section) => section!.body),
    meta,
  );
}

/** What the store met that the user should hear of once, one line each. */
function problemLines({ damaged, notes }: StoreProblems): string[] {
  return [
    ...(damaged > 0 ? [`${damaged} answers kept in the store could not be read: they were bought again and replaced`] : []),
    ...notes,
  ];
}

/** What a batch run asks of the local store: reuse, remembering, spend, and the windows. */
export interface RunStore {
  /** The kept answer for this item when every section is younger than --max-age; undefined without --max-age. */
  reuse(item: SendableItem): Promise<Chunk | undefined>;
  /** Records a response in one transaction: its spend and windows, and the answers of its part (errors are never kept). */
  record(exchange: Exchange, part: readonly PendingItem[]): Promise<void>;
  /** The windows the service last reported for this account, if still fresh. */
  windows(): Promise<ReportedWindow[] | undefined>;
  /** The pacer shared with the account's other runs on this machine (RateLimiter.shareWith). */
  pacer(): SharedPacer;
  /** Records the rows answered from the store and what they would have cost; closes the file. Returns what the store met, one line each. */
  close(fromStore: number, pricePerItem: number): Promise<string[]>;
  /** Month-to-date cost of the account at list price, for --max-cost-month. */
  monthToDateCost(): Promise<number>;
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
  /** The run's clock, the store's too: one machine. */
  now: () => number;
}

/**
 * The local store for one batch run, loaded only when a run uses it (better-sqlite3 is a native
 * module: `--help` and one-offs never load it). Everything is filed under the account, so test
 * keys, the sandbox and live answers never mix.
 */
export async function openRunStore(settings: RunStoreSettings): Promise<RunStore> {
  const { openStore, accountOf } = await import('../store/index.js');
  const store: Store = await openStore(settings.path, { now: settings.now });
  const account = accountOf(settings.connection, settings.sandbox);
  const run = runName(settings.now());
  const pacer = store.pacer(account, run);
  const spend: SpendSettings = { account, run, target: settings.target, sectionKeys: settings.sectionKeys, prices: settings.prices };
  // Time and run identify a request (the store records it once): two answers in one millisecond are a millisecond apart.
  let lastAt = 0;
  const requestTime = () => (lastAt = Math.max(settings.now(), lastAt + 1));
  return {
    async reuse(item) {
      const { maxAgeMs } = settings;
      if (maxAgeMs === undefined) return undefined;
      const [found] = await store.find(account, [itemRefOf(settings.target, item.item)], { maxAgeMs });
      return chunkFromStore(found, settings.sectionKeys, item.item.meta);
    },
    // The windows in this machine's time, as the limiter paced by them: the next run starts from them.
    record: (exchange, part) => store.record(storeEntryOf(spend, exchange, part, requestTime())),
    windows: () => store.loadWindows(account),
    pacer: () => pacer,
    monthToDateCost: () => store.monthToDateCost(account),
    async close(fromStore, pricePerItem) {
      try {
        // This run asks for nothing more: its share of the windows goes to the others at once.
        pacer.leave(settings.now());
        if (fromStore > 0)
          await store.recordReuse({
            at: settings.now(),
            run,
            account,
            endpoint: endpointOf(settings.target, settings.sectionKeys),
            rows: fromStore,
            saved: fromStore * pricePerItem,
          });
      } finally {
        await store.close();
      }
      return problemLines(store.problems());
    },
  };
}
