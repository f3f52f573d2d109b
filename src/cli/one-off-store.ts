import type { SendableItem } from '../batching/batch.js';
import type { Connection } from '../config/connection.js';
import type { Chunk } from '../model/chunk.js';
import type { QueryTarget } from '../model/query-target.js';
import { keepsAnswer } from '../model/record.js';
import { statusOf } from '../model/status.js';
import { Budget } from '../pipeline/budget.js';
import { pricePerItem, sectionPricesOf } from '../pipeline/pricing.js';
import type { Exchange } from '../pipeline/send-batch.js';
import type { BatchOptions } from './batch-command.js';
import type { Io } from './io.js';
import { budgetLimits, resolveRunDefaults, runStorePath } from './run-defaults.js';
import { openRunStore, requestRecordOf, runName, storeKeyOf, type RunStore } from './run-store.js';

/** A one-off and the local store: what it found before the request, and what it keeps after. */
export interface OneOffStore {
  /** A kept answer younger than --max-age: printed instead of sending (and recorded as such). */
  readonly kept: Chunk | undefined;
  /** After the answer is out: keeps it and records the request's spend and windows; closes the store. */
  record(exchange: Exchange): Promise<void>;
  /** Without a request (a kept answer was printed, or the request failed): closes the store. */
  close(): void;
}

export interface OneOffStoreSettings {
  target: QueryTarget;
  sectionKeys: readonly string[];
  item: SendableItem;
  options: BatchOptions;
  io: Io;
  connection: Connection;
  now: () => number;
  /** The command's arguments, for its name in the spend log. */
  argv: readonly string[];
}

/**
 * A one-off uses the local store as a batch of one does: its request's spend is recorded and its
 * answer kept (so `propdata usage` counts one-offs, and a later run with --max-age reuses them);
 * with --max-age a fresh kept answer is printed with no request; --max-cost-month (and the
 * run caps) refuse a request that would pass them. The store is opened only when one of those
 * needs it before the request: loading better-sqlite3 and the store's code and opening the file
 * take 50 to 60 ms. Otherwise, once the answer is out, the record is left beside the store in a
 * file of its own, which the store's next opening applies (store/pending.ts). Undefined with --no-store.
 */
export async function openOneOffStore(settings: OneOffStoreSettings): Promise<OneOffStore | undefined> {
  const { target, options, io } = settings;
  const defaults = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const path = runStorePath(options.store, io.env, defaults);
  const itemPrice = pricePerItem(target, options.price);
  // --max-cost and --max-components need no store: one item over them is refused all the same.
  const overCap = new Budget(
    budgetLimits(options, {}, () => 0),
    itemPrice,
    target.componentsPerItem,
  ).tooSmallForOneItem();
  if (overCap) throw overCap;
  if (path === undefined) return undefined;
  let store: RunStore | undefined;
  const open = () =>
    openRunStore({
      path,
      connection: settings.connection,
      sandbox: Boolean(options.sandbox),
      target,
      sectionKeys: settings.sectionKeys,
      maxAgeMs: defaults.maxAgeMs,
      prices: sectionPricesOf(target, options.price),
      now: settings.now,
      argv: settings.argv,
    });
  let kept: Chunk | undefined;
  if (defaults.maxAgeMs !== undefined || defaults.maxCostMonth !== undefined) {
    const opened = (store = await open());
    kept = opened.reuse(settings.item);
    const limits = budgetLimits({}, defaults, () => opened.monthToDateCost());
    const refused = kept ? undefined : new Budget(limits, itemPrice, target.componentsPerItem).tooSmallForOneItem();
    if (refused) {
      opened.close(0, itemPrice);
      throw refused;
    }
  }
  return {
    kept,
    async record(exchange) {
      const chunk = exchange.chunks?.[0];
      const answered = exchange.status === 200 && chunk !== null && typeof chunk === 'object' ? (chunk as Chunk) : undefined;
      const record = answered && { row: 1, status: statusOf(answered, settings.sectionKeys), input: {}, chunk: answered };
      if (store) {
        if (record) store.remember([{ prepared: settings.item }], [record]);
        store.record(exchange);
        store.close(0, itemPrice);
        return;
      }
      // The store is not open: the record is left beside it, for its next opening to apply.
      const { accountOf } = await import('../store/account.js');
      const { writePending } = await import('../store/pending.js');
      const now = settings.now();
      const spend = {
        account: accountOf(settings.connection, Boolean(options.sandbox)),
        run: runName(now, settings.argv),
        target,
        sectionKeys: settings.sectionKeys,
        prices: sectionPricesOf(target, options.price),
      };
      writePending(path, {
        request: requestRecordOf(spend, exchange, now),
        windows: exchange.windows,
        ...(keepsAnswer(record)
          ? { answer: { key: storeKeyOf(target, settings.item), sections: settings.sectionKeys, chunk: record.chunk } }
          : {}),
      });
    },
    close() {
      store?.close(kept ? 1 : 0, itemPrice);
    },
  };
}
