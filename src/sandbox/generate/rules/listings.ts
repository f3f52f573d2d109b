import { isoDay } from '../dates.js';
import { LIVE_STATUSES, latestListing, type ListingKind } from '../listing.js';
import { propertyOf, type Rule, type RuleTable } from './rule.js';

/** Which listing an endpoint reports on: rental_on_market and rental_listing_status the rental one. */
export const listingKind = (target: string): ListingKind => (target.startsWith('rental_') ? 'rental' : 'sale');

/**
 * listing_status and on_market (and their rental twins) report the same listing, so that status,
 * dates and price agree between them. No-content decides first that the property has one.
 */
function listing(kind: ListingKind): Rule {
  return (generated, context) => {
    const result = generated();
    const { place, facts } = propertyOf(context);
    const found = latestListing(kind, place, facts)!;
    const fields: Record<string, unknown> = {
      currently_listed: LIVE_STATUSES.has(found.status),
      listing_status: found.status,
      listing_date: isoDay(found.listed),
      listing_price: found.price,
      listing_status_date: isoDay(found.statusChanged),
      has_price_considerations: found.hasPriceConsiderations,
      lease_payment_frequency: found.leasePaymentFrequency,
    };
    // The endpoint's own fields, in its schema's order.
    return Object.fromEntries(Object.keys(result).map((field) => [field, fields[field]]));
  };
}

export const LISTING_RULES: RuleTable = {
  'property/listing_status': listing('sale'),
  'property/on_market': listing('sale'),
  'property/rental_listing_status': listing('rental'),
  'property/rental_on_market': listing('rental'),
};
