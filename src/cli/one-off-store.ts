import type { SendableItem } from '../batching/batch.js';
import type { Connection } from '../config/connection.js';
import { isDatabaseUrl } from '../config/database-url.js';
import type { Chunk } from '../model/chunk.js';
import { joinChunk } from '../model/chunk-frame.js';
import { partOfTarget, sectionKeys, type QueryTarget } from '../model/query-target.js';
import { itemRefOf } from '../model/section-refs.js';
import { Budget } from '../pipeline/budget.js';
import { billedCost, itemCostOf, pricePerItem, sectionPricesOf } from '../pipeline/pricing.js';
import type { Exchange } from '../pipeline/send-batch.js';
import type { Store, StoreEntry } from '../store/store-api.js';
import type { QueryOptions } from './commands/query-options.js';
import type { Io } from './io.js';
import { resolveRunDefaults, runStorePath } from './run-defaults.js';
import { budgetLimits } from '../engine/budget-limits.js';
import { keptAnswersOf, requestRecordOf, runName } from '../engine/run-store.js';
import { commandLine } from './resume-command.js';

/** What the store holds of a one-off's item: all of it (nothing is sent), or the sections to buy and the rest. */
export type OneOffPlan = { kind: 'kept'; chunk: Chunk } | { kind: 'buy'; target: QueryTarget; kept: Readonly<Record<string, unknown>> };

/** A one-off and the local store: what it found before the request, and what it keeps after. */
export interface OneOffStore {
  /** With --max-age: what the store answers (undefined: nothing, every section is bought). */
  readonly plan: OneOffPlan | undefined;
  /** After the answer is out: keeps it and records the request's spend and windows; closes the store. */
  record(exchange: Exchange): Promise<void>;
  /** Without a request (a kept answer was printed, or the request failed): closes the store. */
  close(): Promise<void>;
}

export interface OneOffStoreSettings {
  target: QueryTarget;
  item: SendableItem;
  options: QueryOptions;
  io: Io;
  connection: Connection;
  account: string;
  now: () => number;
  /** The command's arguments, for its name in the spend log. */
  argv: readonly string[];
}

/**
 * A one-off uses the store as a batch of one does: its request's spend is recorded and its answer
 * kept (so `propdata usage` counts one-offs, and any later run reuses its sections); with --max-age
 * the sections kept fresh are not bought again (all of them: the answer is printed with no
 * request; some: only the others are asked for); --max-cost-month (and the run caps) refuse a
 * request that would pass them. A local store is opened only when one of those needs it before the
 * request: loading better-sqlite3 and the store's code and opening the file take 50 to 60 ms.
 * Otherwise, once the answer is out, the record is left beside the store in a file of its own,
 * which the store's next opening applies (store/pending.ts). Undefined with --no-store.
 */
export async function openOneOffStore(settings: OneOffStoreSettings): Promise<OneOffStore | undefined> {
  const { target, options, io, account } = settings;
  const defaults = await resolveRunDefaults(options, async () => (await import('../config/config-file.js')).readConfigFile(io.env));
  const path = runStorePath(options.store, io.env, defaults);
  const prices = sectionPricesOf(target, options.price);
  const whole = { components: target.componentsPerItem, price: pricePerItem(target, options.price) };
  // --max-cost and --max-components need no store: one item over them is refused all the same.
  const overCap = new Budget(
    budgetLimits({ maxComponents: options.maxComponents, maxCost: options.maxCost }, () => 0),
    whole,
  ).tooSmallForOneItem();
  if (overCap) throw overCap;
  if (path === undefined) return undefined;
  const spend = { account, run: runName(settings.now(), commandLine(settings.argv)), prices };
  const entryOf = (exchange: Exchange): StoreEntry => ({
    request: requestRecordOf(spend, exchange, settings.now()),
    windows: exchange.windows,
    answers: exchange.status === 200 ? keptAnswersOf(exchange) : [],
  });

  let store: Store | undefined;
  let plan: OneOffPlan | undefined;
  // A database is opened before the request too: one that cannot be used stops the one-off before
  // anything is bought, and its record goes straight in (no file beside a URL).
  if (defaults.maxAgeMs !== undefined || defaults.maxCostMonth !== undefined || isDatabaseUrl(path)) {
    const { openStore } = await import('../store/index.js');
    const opened = (store = await openStore(path, { now: settings.now }));
    try {
      plan = await planFromStore(opened, settings, defaults.maxAgeMs);
      const buying = plan?.kind === 'kept' ? undefined : itemCostOf(plan?.target ?? target, prices);
      const monthToDate = defaults.maxCostMonth === undefined ? 0 : await opened.monthToDateCost(account);
      const refused =
        buying &&
        new Budget(
          budgetLimits({ maxCostMonth: defaults.maxCostMonth }, () => monthToDate),
          buying,
        ).tooSmallForOneItem();
      if (refused) throw refused;
    } catch (error) {
      await opened.close();
      throw error;
    }
  }
  return {
    plan,
    async record(exchange) {
      if (store) {
        try {
          await store.record(entryOf(exchange));
        } finally {
          await store.close();
        }
        return;
      }
      // The store is not open: the record is left beside it, for its next opening to apply.
      const { pendingDir, writePending } = await import('../store/pending.js');
      writePending(pendingDir(path), entryOf(exchange));
    },
    async close() {
      if (!store) return;
      try {
        if (plan?.kind === 'kept') {
          const { cost } = billedCost([plan.chunk], prices);
          await store.recordReuse({
            at: settings.now(),
            run: spend.run,
            account,
            endpoint: sectionKeys(target).join(','),
            rows: 1,
            saved: cost,
          });
        }
      } finally {
        await store.close();
      }
    },
  };
}

/** What the store answers of the item with --max-age: all of it, or some sections (the rest to buy), or nothing. */
async function planFromStore(store: Store, settings: OneOffStoreSettings, maxAgeMs: number | undefined): Promise<OneOffPlan | undefined> {
  if (maxAgeMs === undefined) return undefined;
  const { target, item, account } = settings;
  const members = sectionKeys(target);
  const [found] = await store.find(account, [itemRefOf(target, item.item)], { maxAgeMs });
  const keptAt = found!.sections.flatMap((section, s) => (section === undefined ? [] : [s]));
  if (keptAt.length === 0) return undefined;
  const bodies = keptAt.map((s) => found!.sections[s]!.body);
  if (keptAt.length === members.length) return { kind: 'kept', chunk: joinChunk(found!.frame!, members, bodies, undefined) };
  const lacking = members.flatMap((_, s) => (keptAt.includes(s) ? [] : [s]));
  return { kind: 'buy', target: partOfTarget(target, lacking), kept: Object.fromEntries(keptAt.map((s, k) => [members[s]!, bodies[k]])) };
}
