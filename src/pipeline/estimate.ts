import { LOOKUP_BLOCK } from './run-batch.js';
import { Batcher } from '../batching/batcher.js';
import { Deduplicator } from '../batching/deduplicator.js';
import type { Batch, PendingItem, SendableItem } from '../batching/batch.js';
import type { InputRow, PreparedItem } from '../input/row.js';
import { partOfTarget, sectionKeys, type QueryTarget } from '../model/query-target.js';
import type { BudgetLimits } from './budget.js';
import { formatDuration } from './format-duration.js';
import { itemCostOf } from './pricing.js';

export interface EstimateSettings {
  target: QueryTarget;
  batchSize: number;
  dedupeCapacity: number;
  /** USD at list price per section (chunk member). */
  sectionPrices: Readonly<Record<string, number>>;
  /** Components per minute the run will be paced at. */
  ratePerMinute: number;
  /**
   * The most the run's first request carries before the service has stated its windows (the
   * limiter's probe), in components; undefined when the windows are already known. A first batch
   * larger than this goes out as two requests.
   */
  probeComponents?: number;
  /** The sections (indices) each item still lacks in the store, a block of items at a time; absent: every section. */
  lacking?: (items: readonly SendableItem[]) => Promise<number[][]>;
  /** The caps the run would stop at: the estimate says when its spend would pass one. */
  limits?: BudgetLimits;
}

export interface Estimate {
  rows: number;
  invalidRows: number;
  /** Items that will be sent (duplicates removed). */
  uniqueItems: number;
  duplicates: number;
  /** Rows the store answers whole: nothing is sent for them. */
  fromStore: number;
  /** Items the store answers in part: only the sections they lack are sent. */
  partlyFromStore: number;
  components: number;
  /** Requests the run would send, the probe included. */
  requests: number;
  /** Items in the first, small request that learns the rate limit, when the first batch is split for it. */
  probeItems?: number;
  expectedMinutes: number;
  expectedCostUsd: number;
  /** The caps this spend would pass: the run would stop there (exit 4). */
  capsPassed: string[];
  /** The first few invalid rows, to fix before spending anything. */
  invalidExamples: { row: number; reason: string }[];
}

/** What the caps say of an expected spend: each cap it would pass, in words. */
function capsPassed(limits: BudgetLimits | undefined, components: number, cost: number): string[] {
  if (!limits) return [];
  const passed: string[] = [];
  if (limits.maxComponents !== undefined && components > limits.maxComponents)
    passed.push(
      `--max-components ${limits.maxComponents}: the run would stop there, at ${limits.maxComponents} of ${components} components`,
    );
  if (limits.maxCost !== undefined && cost > limits.maxCost + 1e-9)
    passed.push(`--max-cost ${limits.maxCost} USD: the run would stop there, before ${cost.toFixed(2)} USD`);
  if (limits.maxCostMonth && limits.maxCostMonth.spent + cost > limits.maxCostMonth.cap + 1e-9) {
    const { cap, spent } = limits.maxCostMonth;
    passed.push(
      `--max-cost-month ${cap} USD: this month has cost ${spent.toFixed(2)} USD, so the run would stop after ${Math.max(0, cap - spent).toFixed(2)} more`,
    );
  }
  return passed;
}

const emptyEstimate = (): Estimate => ({
  rows: 0,
  invalidRows: 0,
  uniqueItems: 0,
  duplicates: 0,
  fromStore: 0,
  partlyFromStore: 0,
  components: 0,
  requests: 0,
  expectedMinutes: 0,
  expectedCostUsd: 0,
  capsPassed: [],
  invalidExamples: [],
});

/** Counts the requests batches would take, and the probe a first batch wider than the first request allows would add. */
function requestCounter(settings: EstimateSettings, estimate: Estimate): (batches: readonly Batch[]) => void {
  let first = true;
  return (batches) => {
    estimate.requests += batches.length;
    if (!first || batches.length === 0) return;
    first = false;
    if (settings.probeComponents === undefined) return;
    const unit = batches[0]!.sections?.length ?? settings.target.componentsPerItem;
    const probeItems = Math.max(1, Math.floor(settings.probeComponents / unit));
    if (batches[0]!.items.length > probeItems) {
      estimate.requests += 1;
      estimate.probeItems = probeItems;
    }
  };
}

/**
 * What the store leaves to buy of a block of items, counted: an item it answers whole costs
 * nothing, one it answers in part costs the sections it lacks. Returns the block's list price.
 */
async function countBlock(
  items: readonly PendingItem[],
  settings: EstimateSettings,
  estimate: Estimate,
  into: (pending: PendingItem) => void,
): Promise<number> {
  const all = sectionKeys(settings.target).map((_, s) => s);
  const lacking = settings.lacking ? await settings.lacking(items.map((pending) => pending.prepared)) : items.map(() => all);
  let cost = 0;
  items.forEach((pending, i) => {
    const sections = lacking[i]!;
    if (sections.length === 0) {
      estimate.fromStore += 1;
      return;
    }
    if (sections.length < all.length) estimate.partlyFromStore += 1;
    const { components, price } = itemCostOf(partOfTarget(settings.target, sections), settings.sectionPrices);
    estimate.uniqueItems += 1;
    estimate.components += components;
    cost += price;
    pending.plan = { sections, kept: {} };
    into(pending);
  });
  return cost;
}

/**
 * What a run would do, without sending anything: the same preparation, deduplication, store
 * lookups and batching the run uses, fed answers that never come from the service. Only what
 * would be sent is counted.
 */
export async function estimateRun(
  rows: AsyncIterable<InputRow>,
  prepare: (row: InputRow) => PreparedItem,
  settings: EstimateSettings,
): Promise<Estimate> {
  const batcher = new Batcher(settings.batchSize, Number.MAX_SAFE_INTEGER);
  const dedupe = settings.dedupeCapacity > 0 ? new Deduplicator(settings.dedupeCapacity) : undefined;
  const estimate = emptyEstimate();
  const count = requestCounter(settings, estimate);
  let cost = 0;
  let block: PendingItem[] = [];
  const resolveBlock = async () => {
    if (block.length > 0) cost += await countBlock(block, settings, estimate, (pending) => count(batcher.add(pending)));
    block = [];
  };
  for await (const row of rows) {
    estimate.rows += 1;
    const prepared = prepare(row);
    if (!prepared.item) {
      estimate.invalidRows += 1;
      if (estimate.invalidExamples.length < 5) estimate.invalidExamples.push({ row: prepared.row, reason: prepared.invalid ?? 'invalid' });
      continue;
    }
    const sendable = prepared as SendableItem;
    const decision = dedupe?.decide(sendable) ?? { kind: 'send' as const, pending: { prepared: sendable, duplicates: [] } };
    if (decision.kind !== 'send') {
      estimate.duplicates += 1;
      continue;
    }
    dedupe?.settle(decision.pending, { chunk: {}, status: 'ok' });
    block.push(decision.pending);
    if (block.length >= LOOKUP_BLOCK) await resolveBlock();
  }
  await resolveBlock();
  count(batcher.flush());
  estimate.expectedMinutes = estimate.components / settings.ratePerMinute;
  estimate.expectedCostUsd = Math.round(cost * 100) / 100;
  estimate.capsPassed = capsPassed(settings.limits, estimate.components, cost);
  return estimate;
}

export function formatEstimate(estimate: Estimate, ratePerMinute: number): string {
  const stored = [
    ...(estimate.fromStore > 0 ? [`${estimate.fromStore} rows answered whole, not sent`] : []),
    ...(estimate.partlyFromStore > 0 ? [`${estimate.partlyFromStore} items in part: only the sections they lack are sent`] : []),
  ];
  const lines = [
    `rows:            ${estimate.rows}`,
    `invalid rows:    ${estimate.invalidRows}${estimate.invalidRows > 0 ? ' (written as invalid_input, not sent)' : ''}`,
    `unique items:    ${estimate.uniqueItems} to send (${estimate.duplicates} duplicates answered from the same request)`,
    ...(stored.length > 0 ? [`from the store:  ${stored.join('; ')}`] : []),
    `components:      ${estimate.components}`,
    `requests:        ${estimate.requests}${estimate.probeItems === undefined ? '' : ` (the first carries ${estimate.probeItems} items, to learn the rate limit)`}`,
    `expected time:   ${formatDuration(estimate.expectedMinutes)} at ${ratePerMinute} components/min`,
    `expected cost:   ${estimate.expectedCostUsd.toFixed(2)} USD at list price (204 sections are not charged)`,
    ...estimate.capsPassed.map((cap) => `over a cap:      ${cap}`),
    // Each reason already names its row (`row 53: ...`).
    ...estimate.invalidExamples.map((example) => `  ${example.reason}`),
  ];
  return `${lines.join('\n')}\n`;
}
