import { propertyHistory } from '../history/index.js';
import type { Parties } from '../people.js';
import { propertyOf, type RuleContext } from './rule.js';

/** What the rules about deeds, liens, defaults and the last sale share: the history and how its parties are reported. */

/** grantee_1, grantee_1_forenames, grantee_2, grantee_2_forenames (or the grantor ones) of the parties. */
export function partyFields(role: 'grantee' | 'grantor', [first, second]: Parties) {
  return {
    [`${role}_1`]: first.name,
    [`${role}_1_forenames`]: first.forenames,
    [`${role}_2`]: second?.name ?? null,
    [`${role}_2_forenames`]: second?.forenames ?? null,
  };
}

/** The property's history, and the parcel fields every record of it carries. */
export const historyOf = (context: RuleContext) => {
  const { place, facts } = propertyOf(context);
  return { parcel: { apn: facts.fields.apn, fips: place.countyFips }, history: propertyHistory(place, facts) };
};
