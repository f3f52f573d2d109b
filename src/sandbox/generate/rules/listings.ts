import { LEASE_PAYMENT_FREQUENCIES, RENTAL_LISTING_STATUSES, SALE_LISTING_STATUSES } from '../../../catalog/enums.js';
import { DATA_DATE, addDays, dayInPast, isoDay } from '../dates.js';
import { randomFor } from '../random.js';
import { propertyOf, type Rule } from './rule.js';

export type ListingKind = 'sale' | 'rental';

/** Which listing an endpoint reports on: rental_on_market and rental_listing_status the rental one. */
export const listingKind = (target: string): ListingKind => (target.startsWith('rental_') ? 'rental' : 'sale');

/** Statuses of a listing that is live, for currently_listed. */
const LIVE = new Set<string>(['Coming Soon', 'Active', 'Pending', 'Contingent']);

/**
 * A property's latest sale or rental listing, drawn once from its key: listing_status and on_market
 * (and their rental twins) report the same listing, so that status, dates and price agree between
 * them. The dates run in order (listed, then the status change, not after the data month) and the
 * price lies near the property's value or rent.
 */
function listing(kind: ListingKind): Rule {
  return (result, context) => {
    const { place, facts } = propertyOf(context);
    const random = randomFor('listing', kind, place.key);
    const listed = dayInPast(random, kind === 'rental' ? 1 : 2);
    const [base, step] = kind === 'rental' ? [facts.rentMean, 5] : [facts.valueMean, 1000];
    const status = random.pick(kind === 'rental' ? RENTAL_LISTING_STATUSES : SALE_LISTING_STATUSES);
    const statusChanged = addDays(listed, random.int(0, 120));
    const fields: Record<string, unknown> = {
      currently_listed: LIVE.has(status),
      listing_status: status,
      listing_date: isoDay(listed),
      listing_price: Math.round((base * random.float(0.92, 1.12, 3)) / step) * step,
      listing_status_date: isoDay(statusChanged < DATA_DATE ? statusChanged : DATA_DATE),
      // Only for prices that may not reflect fair market value (bank-owned and the like): rare.
      has_price_considerations: random.chance(0.08) ? true : null,
      lease_payment_frequency: random.chance(0.9) ? 'Monthly' : random.pick(LEASE_PAYMENT_FREQUENCIES),
    };
    // The endpoint's own fields, in its schema's order.
    return Object.fromEntries(Object.keys(result).map((field) => [field, fields[field]]));
  };
}

export const LISTING_RULES: Readonly<Record<string, Rule>> = {
  'property/listing_status': listing('sale'),
  'property/on_market': listing('sale'),
  'property/rental_listing_status': listing('rental'),
  'property/rental_on_market': listing('rental'),
};
