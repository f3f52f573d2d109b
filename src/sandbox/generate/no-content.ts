import type { Endpoint } from '../../catalog/index.js';
import { fractionOf } from './random.js';
import { listingKind } from './rules/listings.js';

/**
 * Share of properties without a sale listing record (or outside listing coverage), and likewise
 * for rentals: the endpoints reporting one listing answer 204 together.
 */
const NO_LISTING_SHARE = 0.4;
/** Share of properties whose adjustment the model cannot perform, whatever is asked. */
const ADJUSTMENT_IMPOSSIBLE_SHARE = 0.03;
/** Additions beyond these are more than the model extrapolates to. */
const ADJUSTMENT_LIMITS: Readonly<Record<string, number>> = { add_beds: 5, add_baths: 5, add_sqft: 5000 };

/**
 * Whether a section has no content for a resolved item, beyond an unresolved address: the catalog's
 * `noContent` cause decides the rule, and the subject's key makes the answer stable.
 */
export function hasNoContent(endpoint: Endpoint, subjectKey: string, params: Readonly<Record<string, string | number>>): boolean {
  switch (endpoint.noContent) {
    case 'no-listing':
    case 'limited-coverage':
      return fractionOf('no-listing', listingKind(endpoint.target), subjectKey) < NO_LISTING_SHARE;
    case 'adjustment-impossible':
      return (
        Object.entries(ADJUSTMENT_LIMITS).some(([name, limit]) => Number(params[name] ?? 0) > limit) ||
        fractionOf('adjustment-impossible', subjectKey) < ADJUSTMENT_IMPOSSIBLE_SHARE
      );
    case undefined:
      return false;
  }
}
