import { Batcher } from '../batching/batcher.js';
import { Deduplicator } from '../batching/deduplicator.js';
import type { Batch, SendableItem } from '../batching/batch.js';
import type { InputRow, PreparedItem } from '../input/row.js';
import { formatDuration } from './format-duration.js';

export interface EstimateSettings {
  batchSize: number;
  dedupeCapacity: number;
  componentsPerItem: number;
  /** USD per item at list price: the sum of its sections' prices. */
  pricePerItem: number;
  /** Components per minute the run will be paced at. */
  ratePerMinute: number;
  /**
   * The most the run's first request carries before the service has stated its windows (the
   * limiter's probe), in components; undefined when the windows are already known. A first batch
   * larger than this goes out as two requests.
   */
  probeComponents?: number;
  /** Whether the local store would answer this item (--max-age): it is then not sent, not paid. */
  kept?: (item: SendableItem) => Promise<boolean>;
}

export interface Estimate {
  rows: number;
  invalidRows: number;
  /** Items that will be sent (duplicates removed). */
  uniqueItems: number;
  duplicates: number;
  /** Rows the local store would answer (--max-age). */
  fromStore: number;
  components: number;
  /** Requests the run would send, the probe included. */
  requests: number;
  /** Items in the first, small request that learns the rate limit, when the first batch is split for it. */
  probeItems?: number;
  expectedMinutes: number;
  expectedCostUsd: number;
  /** The first few invalid rows, to fix before spending anything. */
  invalidExamples: { row: number; reason: string }[];
}

/**
 * What a run would do, without sending anything: the same preparation, deduplication and
 * batching the run uses, fed answers that never come from the service.
 */
export async function estimateRun(
  rows: AsyncIterable<InputRow>,
  prepare: (row: InputRow) => PreparedItem,
  settings: EstimateSettings,
): Promise<Estimate> {
  const batcher = new Batcher(settings.batchSize, Number.MAX_SAFE_INTEGER);
  const dedupe = settings.dedupeCapacity > 0 ? new Deduplicator(settings.dedupeCapacity) : undefined;
  const estimate: Estimate = {
    rows: 0,
    invalidRows: 0,
    uniqueItems: 0,
    duplicates: 0,
    fromStore: 0,
    components: 0,
    requests: 0,
    expectedMinutes: 0,
    expectedCostUsd: 0,
    invalidExamples: [],
  };
  let first = true;
  const count = (batches: readonly Batch[]) => {
    estimate.requests += batches.length;
    if (!first || batches.length === 0) return;
    first = false;
    if (settings.probeComponents === undefined) return;
    const probeItems = Math.max(1, Math.floor(settings.probeComponents / settings.componentsPerItem));
    if (batches[0]!.items.length > probeItems) {
      estimate.requests += 1;
      estimate.probeItems = probeItems;
    }
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
    if (await settings.kept?.(sendable)) {
      estimate.fromStore += 1;
      continue;
    }
    const decision = dedupe?.decide(sendable) ?? { kind: 'send' as const, pending: { prepared: sendable, duplicates: [] } };
    if (decision.kind !== 'send') {
      estimate.duplicates += 1;
      continue;
    }
    dedupe?.settle(decision.pending, { chunk: {}, status: 'ok' });
    estimate.uniqueItems += 1;
    count(batcher.add(decision.pending));
  }
  count(batcher.flush());
  estimate.components = estimate.uniqueItems * settings.componentsPerItem;
  estimate.expectedMinutes = estimate.components / settings.ratePerMinute;
  estimate.expectedCostUsd = Math.round(estimate.uniqueItems * settings.pricePerItem * 100) / 100;
  return estimate;
}

export function formatEstimate(estimate: Estimate, ratePerMinute: number): string {
  const lines = [
    `rows:            ${estimate.rows}`,
    `invalid rows:    ${estimate.invalidRows}${estimate.invalidRows > 0 ? ' (written as invalid_input, not sent)' : ''}`,
    `unique items:    ${estimate.uniqueItems} (${estimate.duplicates} duplicates answered from the same request)`,
    ...(estimate.fromStore > 0 ? [`from the store:  ${estimate.fromStore} rows answered by earlier runs (--max-age), not sent`] : []),
    `components:      ${estimate.components}`,
    `requests:        ${estimate.requests}${estimate.probeItems === undefined ? '' : ` (the first carries ${estimate.probeItems} items, to learn the rate limit)`}`,
    `expected time:   ${formatDuration(estimate.expectedMinutes)} at ${ratePerMinute} components/min`,
    `expected cost:   ${estimate.expectedCostUsd.toFixed(2)} USD at list price (204 sections are not charged)`,
    // Each reason already names its row (`row 53: ...`).
    ...estimate.invalidExamples.map((example) => `  ${example.reason}`),
  ];
  return `${lines.join('\n')}\n`;
}
