import { UsageError } from '../errors/index.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import type { ItemCost } from './budget.js';

/**
 * USD at list price per section this run calls (chunk member): the catalog's price unless
 * `--price endpoint=USD` overrides it; paths the catalog does not know cost 0 here. An override
 * that is not a price, or names an endpoint this run does not call, is a usage error: a NaN would
 * silently switch --max-cost off, a misspelt name would silently not apply.
 */
export function sectionPricesOf(target: QueryTarget, overrides: Record<string, string> = {}): Record<string, number> {
  const called = new Set(target.sections.map((endpoint) => endpoint.name));
  for (const [name, value] of Object.entries(overrides)) {
    if (!called.has(name)) {
      throw new UsageError(
        `--price ${name}=${value}: this run does not call ${name}; it calls ${[...called].join(', ') || 'a path outside the catalog'}`,
        'E_USAGE_PRICE',
      );
    }
    if (!/^\d+(\.\d+)?$/.test(value.trim()))
      throw new UsageError(`--price ${name}=${value}: expected a price in USD such as 0.25`, 'E_USAGE_PRICE');
  }
  return Object.fromEntries(
    target.sections.map((endpoint) => [
      endpoint.name,
      overrides[endpoint.name] === undefined ? endpoint.price : Number(overrides[endpoint.name]),
    ]),
  );
}

/** USD per item at list price: one component per section, each at its price (sectionPricesOf). */
export function pricePerItem(target: QueryTarget, overrides: Record<string, string> = {}): number {
  return itemCostOf(target, sectionPricesOf(target, overrides)).price;
}

/**
 * What a 200's chunks cost at list price: each section answered with data (api_code 0) at its
 * price; a 204 section, an error section or an unusable chunk costs nothing.
 */
export function billedCost(
  chunks: readonly unknown[] | undefined,
  prices: Readonly<Record<string, number>>,
): { billed: number; cost: number } {
  let billed = 0;
  let cost = 0;
  // Once per answer, not per chunk: every chunk of a 200 passes here.
  const sections = Object.entries(prices);
  for (const chunk of chunks ?? []) {
    if (chunk === null || typeof chunk !== 'object') continue;
    for (const [name, price] of sections) {
      const section = (chunk as Record<string, unknown>)[name];
      if (section !== null && typeof section === 'object' && (section as { api_code?: unknown }).api_code === 0) {
        billed += 1;
        cost += price;
      }
    }
  }
  return { billed, cost };
}

/** What one item of `target` costs: a component and the list price of each section it asks (0 outside `prices`). */
export function itemCostOf(target: QueryTarget, prices: Readonly<Record<string, number>>): ItemCost {
  const members = sectionKeys(target);
  return { components: target.componentsPerItem, price: members.reduce((sum, member) => sum + (prices[member] ?? 0), 0) };
}
