import type { QueryTarget } from '../model/query-target.js';

/**
 * USD per item at list price: one component per section, each at the catalog's price unless
 * `--price endpoint=USD` overrides it. Paths the catalog does not know cost 0 here.
 */
export function pricePerItem(target: QueryTarget, overrides: Record<string, string> = {}): number {
  return target.sections.reduce((sum, endpoint) => {
    const override = overrides[endpoint.name];
    return sum + (override === undefined ? endpoint.price : Number(override));
  }, 0);
}
