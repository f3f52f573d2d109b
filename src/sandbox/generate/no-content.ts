import type { Endpoint } from '../../catalog/index.js';
import { hasListingRecord } from './listing.js';
import { fractionOf } from './random.js';
import { listingKind } from './rules/listings.js';

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
    // The endpoints reporting one listing answer 204 together.
    case 'no-listing':
    case 'limited-coverage':
      return !hasListingRecord(listingKind(endpoint.target), subjectKey);
    case 'adjustment-impossible':
      return (
        Object.entries(ADJUSTMENT_LIMITS).some(([name, limit]) => Number(params[name] ?? 0) > limit) ||
        fractionOf('adjustment-impossible', subjectKey) < ADJUSTMENT_IMPOSSIBLE_SHARE
      );
    case undefined:
      return false;
  }
}
