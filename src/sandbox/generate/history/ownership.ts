import { DATA_DATE, addDays, addMonths } from '../dates.js';
import { valueAt, type PropertyFacts } from '../facts.js';
import type { Listing } from '../listing.js';
import { builder, household, withPartner, type Parties } from '../people.js';
import type { Random } from '../random.js';
import { recording, type Recording } from '../recording.js';

/** A deed: the sale that begins an ownership, or a transfer between the same household. */
export interface Deed {
  eventType: 'arms_length_sale' | 'transfer';
  recording: Recording;
  date: Date;
  /** Dollars; a transfer carries none. */
  price: number;
  buyers: Parties;
  sellers: Parties;
  listedOn: Date;
  listPrice: number;
  /** A forced sale, and one of those out of foreclosure; both sell below the value. */
  distressed: boolean;
  reo: boolean;
}

/** One owner's time with the property: bought by `purchase`, held until `end` (a sale, or the data month). */
export interface Ownership {
  purchase: Deed;
  transfer: Deed | null;
  end: Date;
}

/** How far back the history reaches: owners before then leave no trace in any answer. */
const EARLIEST = addMonths(DATA_DATE, -45 * 12);
/** Statuses of a sale listing that has sold: its sale is the current owner's purchase. */
const SOLD = new Set(['Sold', 'Closed']);

const yearsInDays = (years: number) => Math.round(years * 365);

/**
 * The dates the owners bought, oldest first, and whether the first was the sale of the new house.
 * Owners stay 2 to 20 years; none bought before the house was built; the owner who listed the
 * house bought before listing it.
 */
function purchaseDates(random: Random, facts: PropertyFacts, listing: Listing | null) {
  const built = new Date(Date.UTC(facts.yearBuilt, random.int(0, 11), 1));
  const dates = listing && SOLD.has(listing.status) ? [listing.statusChanged] : [];
  let before = listing ? listing.listed : DATA_DATE;
  while (before > EARLIEST) {
    const date = addDays(before, -yearsInDays(random.float(2, 20, 3)));
    if (date <= built) {
      // Sold new within a year of being built, and a month or more before the next sale.
      const sinceBuilt = Math.round((before.getTime() - built.getTime()) / 86_400_000);
      dates.push(addDays(built, Math.round(random.next() * Math.min(365, Math.max(0, sinceBuilt - 30)))));
      return { dates: dates.reverse(), soldNew: true };
    }
    dates.push(date);
    before = date;
  }
  return { dates: dates.reverse(), soldNew: false };
}

function sale(random: Random, facts: PropertyFacts, date: Date, buyers: Parties, sellers: Parties): Deed {
  const distressed = random.chance(0.05);
  const price = Math.round((valueAt(facts, date) * (distressed ? random.float(0.75, 0.9, 3) : random.float(0.93, 1.05, 3))) / 1000) * 1000;
  return {
    eventType: 'arms_length_sale',
    recording: recording(random, date),
    date,
    price,
    buyers,
    sellers,
    listedOn: addDays(date, -random.int(20, 120)),
    listPrice: Math.round((price * random.float(0.98, 1.08, 3)) / 1000) * 1000,
    distressed,
    reo: distressed && random.chance(0.5),
  };
}

/** The sale a sold listing recorded: near the asking price, and distressed when the listing said its price might be. */
function listedSale(random: Random, listing: Listing, buyers: Parties, sellers: Parties): Deed {
  const distressed = listing.hasPriceConsiderations === true;
  return {
    eventType: 'arms_length_sale',
    recording: recording(random, listing.statusChanged),
    date: listing.statusChanged,
    price: Math.round((listing.price * random.float(0.96, 1.02, 3)) / 1000) * 1000,
    buyers,
    sellers,
    listedOn: listing.listed,
    listPrice: listing.price,
    distressed,
    reo: distressed && random.chance(0.5),
  };
}

/** Now and then a household puts a partner on title: a transfer deed with no price. */
function transferWithin(random: Random, purchase: Deed, end: Date): Deed | null {
  const days = Math.round((end.getTime() - purchase.date.getTime()) / 86_400_000);
  if (purchase.buyers[1] !== null || days < 400 || !random.chance(0.2)) return null;
  const date = addDays(purchase.date, random.int(200, days - 100));
  const buyers = withPartner(purchase.buyers, random);
  return {
    ...purchase,
    eventType: 'transfer',
    recording: recording(random, date),
    date,
    price: 0,
    buyers,
    sellers: purchase.buyers,
    distressed: false,
    reo: false,
  };
}

/** The property's owners, oldest first; the last one owns it now. */
export function ownerships(random: Random, facts: PropertyFacts, listing: Listing | null): Ownership[] {
  const { dates, soldNew } = purchaseDates(random, facts, listing);
  const result: Ownership[] = [];
  let sellers = soldNew ? builder(random) : household(random);
  dates.forEach((date, index) => {
    const buyers = household(random);
    const isListed = index === dates.length - 1 && listing !== null && date === listing.statusChanged;
    const purchase = isListed ? listedSale(random, listing, buyers, sellers) : sale(random, facts, date, buyers, sellers);
    const end = dates[index + 1] ?? DATA_DATE;
    const transfer = transferWithin(random, purchase, end);
    result.push({ purchase, transfer, end });
    sellers = transfer?.buyers ?? buyers;
  });
  return result;
}
