import { DATA_DATE, addDays, addMonths } from '../dates.js';
import type { PropertyFacts } from '../facts.js';
import { latestListing } from '../listing.js';
import type { Parties } from '../people.js';
import type { Place } from '../place.js';
import { randomFor, type Random } from '../random.js';
import { recording, type Recording } from '../recording.js';
import { ownershipLiens, type Lien } from './financing.js';
import { ownerships, type Deed } from './ownership.js';

export type { Deed } from './ownership.js';
export type { Lien } from './financing.js';
export { standing } from './loans.js';

/**
 * A property's recorded past, drawn once from its key: who bought it when and for how much, what
 * each owner borrowed, and the current owner's notices of default. The answers about deeds, liens,
 * loan-to-value, defaults and the last sale all read it, so that they tell one story.
 */
export interface PropertyHistory {
  /** Newest first, back to the first owner the history knows. */
  deeds: Deed[];
  /** Newest first. */
  liens: Lien[];
  /** The current owner's purchase: the last arm's-length sale. */
  lastSale: Deed;
  owners: Parties;
  /** The current owner's liens still running in the data month. */
  currentLiens: Lien[];
  /** Notices of default since the last sale, newest first. */
  defaults: Recording[];
}

/** sales_history and mortgage_lien_all reach back this far. */
export const RECORDS_FROM = addMonths(DATA_DATE, -25 * 12);

const newestFirst = (a: { date: Date }, b: { date: Date }) => b.date.getTime() - a.date.getTime();

/** Rare: a notice or two in the last three years of an owner who has run a year with loans. */
function defaultNotices(random: Random, since: Date, hasLoans: boolean): Recording[] {
  const from = Math.max(addDays(since, 365).getTime(), addMonths(DATA_DATE, -36).getTime());
  const to = addDays(DATA_DATE, -30).getTime();
  if (!hasLoans || from >= to || !random.chance(0.04)) return [];
  const count = random.chance(0.3) ? 2 : 1;
  const dates = Array.from({ length: count }, () => new Date(from + Math.round((random.next() * (to - from)) / 86_400_000) * 86_400_000));
  return dates.sort((a, b) => b.getTime() - a.getTime()).map((date) => recording(random, date));
}

export function propertyHistory(place: Place, facts: PropertyFacts): PropertyHistory {
  const random = randomFor('history', place.key);
  const owners = ownerships(random, facts, latestListing('sale', place, facts));
  const liensByOwner = owners.map((ownership) => ownershipLiens(random, facts, ownership));
  const current = owners.at(-1)!;
  const currentLiens = liensByOwner.at(-1)!.filter((lien) => lien.repaid === null && lien.due > DATA_DATE);
  return {
    deeds: owners
      .flatMap((ownership) => (ownership.transfer ? [ownership.purchase, ownership.transfer] : [ownership.purchase]))
      .sort(newestFirst),
    liens: liensByOwner.flat().sort(newestFirst),
    lastSale: current.purchase,
    owners: current.transfer?.buyers ?? current.purchase.buyers,
    currentLiens,
    defaults: defaultNotices(random, current.purchase.date, currentLiens.length > 0),
  };
}
