import { LEASE_PAYMENT_FREQUENCIES, RENTAL_LISTING_STATUSES, SALE_LISTING_STATUSES } from '../../catalog/enums.js';
import { DATA_DATE, addDays, dayInPast } from './dates.js';
import type { PropertyFacts } from './facts.js';
import type { Place } from './place.js';
import { fractionOf, randomFor } from './random.js';

export type ListingKind = 'sale' | 'rental';

/** Share of properties without a sale listing record (or outside listing coverage), and likewise for rentals. */
const NO_LISTING_SHARE = 0.4;

export function hasListingRecord(kind: ListingKind, placeKey: string): boolean {
  return fractionOf('no-listing', kind, placeKey) >= NO_LISTING_SHARE;
}

/** The statuses a listing of each kind can take: a sale listing is never Leased, a rental never Sold. */
const STATUSES: Readonly<Record<ListingKind, readonly string[]>> = {
  sale: SALE_LISTING_STATUSES.filter((status) => status !== 'Leased'),
  rental: RENTAL_LISTING_STATUSES.filter((status) => status !== 'Sold'),
};

/** Statuses of a listing that is live. */
export const LIVE_STATUSES: ReadonlySet<string> = new Set(['Coming Soon', 'Active', 'Pending', 'Contingent']);

export interface Listing {
  status: string;
  listed: Date;
  statusChanged: Date;
  price: number;
  hasPriceConsiderations: true | null;
  leasePaymentFrequency: string;
}

/**
 * A property's latest sale or rental listing, drawn once from its key, or null when it has none:
 * the listing endpoints report it, and the property's sales history ends with it when it sold. The
 * dates run in order (listed, then the status change, not after the data month) and the price lies
 * near the property's value or rent.
 */
export function latestListing(kind: ListingKind, place: Place, facts: PropertyFacts): Listing | null {
  if (!hasListingRecord(kind, place.key)) return null;
  const random = randomFor('listing', kind, place.key);
  const listed = dayInPast(random, kind === 'rental' ? 1 : 2);
  const [base, step] = kind === 'rental' ? [facts.rentMean, 5] : [facts.valueMean, 1000];
  const status = random.pick(STATUSES[kind]);
  const statusChanged = addDays(listed, random.int(0, 120));
  return {
    status,
    listed,
    statusChanged: statusChanged < DATA_DATE ? statusChanged : DATA_DATE,
    price: Math.round((base * random.float(0.92, 1.12, 3)) / step) * step,
    // Only for prices that may not reflect fair market value (bank-owned and the like): rare.
    hasPriceConsiderations: random.chance(0.08) ? true : null,
    leasePaymentFrequency: random.chance(0.9) ? 'Monthly' : random.pick(LEASE_PAYMENT_FREQUENCIES),
  };
}
