import { stateCode } from '../../catalog/index.js';
import { canonicalStreet, normaliseWords } from './address-words.js';
import { STATES, knownPlace, postalCity, stateOfFips, stateOfZip, typicalValue, zipForCity } from './geography.js';
import { fractionOf, randomFor, type Random } from './random.js';
import { partsOfSlug, slugOf, type AddressParts } from './slug.js';

/** A property the synthetic address database knows: every value here follows from key alone. */
export interface Place {
  /** street + unit + ZIP, normalised: the identity all property data derives from. */
  key: string;
  street: string;
  unit: string | null;
  city: string;
  state: string;
  zip: string;
  plus4: string;
  slug: string;
  blockId: string;
  countyFips: string;
  msa: string | null;
  metrodiv: string | null;
  lat: number;
  lng: number;
  geoPrecision: 'rooftop' | 'zip9' | 'zip5';
  typicalValue: number;
}

export type Resolution =
  | { matched: true; place: Place; changes: string[] }
  | { matched: false; errors: string[]; changes: string[] };

/** A stable share of well-formed addresses the address database does not know. */
const UNKNOWN_ADDRESS_SHARE = 0.03;

const titleCase = (words: string) => words.replace(/\b[a-z]/g, (letter) => letter.toUpperCase());

/** "43 Valmonte Plaza, Palos Verdes Estates, CA 90274" or "43 Valmonte Plaza 90274": the pieces in it. */
function splitAddressLine(address: string): { street: string; city?: string; state?: string; zip?: string } {
  const commaParts = address.split(',').map((part) => part.trim()).filter(Boolean);
  const tail = commaParts.length > 1 ? commaParts.slice(1).join(' ') : '';
  const trailingZip = /^(.*\S)\s+(\d{5})(?:-\d{4})?$/.exec(commaParts.length > 1 ? tail : address.trim());
  if (commaParts.length === 1) return trailingZip ? { street: trailingZip[1]!, zip: trailingZip[2] } : { street: address };
  const stateZip = /(?:^|\s)([A-Za-z]{2})(?:\s+(\d{5})(?:-\d{4})?)?$/.exec(tail);
  return {
    street: commaParts[0]!,
    city: commaParts.length > 2 ? commaParts[1] : undefined,
    state: stateZip?.[1],
    zip: stateZip?.[2] ?? trailingZip?.[2],
  };
}

function partsOfIdentifiers(identifiers: Readonly<Record<string, string>>, changes: string[]): AddressParts | string {
  const line = splitAddressLine(identifiers.address ?? '');
  if (!identifiers.zipcode && line.zip) changes.push('zipcode taken from the address line');
  const street = canonicalStreet(normaliseWords(line.street));
  if (street.includes('nomatch')) return 'address not found in the address database';
  if (!/^\d/.test(street)) return 'address has no building number';

  const zipGiven = identifiers.zipcode ?? line.zip;
  const stateGiven = identifiers.state ?? line.state;
  const cityGiven = normaliseWords(identifiers.city ?? line.city ?? '');
  const requestedState = stateGiven ? stateCode(stateGiven) : undefined;
  if (stateGiven && requestedState && requestedState !== stateGiven.trim()) changes.push('state name converted to its abbreviation');

  let zip = zipGiven;
  let state: string | undefined;
  if (zip) {
    state = stateOfZip(zip);
    if (!state) return `zipcode ${zip} does not exist`;
    if (requestedState && requestedState !== state) changes.push(`state corrected from ${requestedState} to ${state} to match the zipcode`);
  } else if (cityGiven && requestedState) {
    state = requestedState;
    zip = zipForCity(cityGiven, state, (count) => Math.floor(fractionOf('zip-for-city', cityGiven, state ?? '') * count));
    if (!zip) return `no zipcode known in ${state}`;
    changes.push('zipcode derived from city and state');
  } else {
    return 'address alone is ambiguous: add zipcode, or city and state';
  }
  const city = cityGiven || normaliseWords(postalCity(zip));
  if (!cityGiven) changes.push('city set from the zipcode');
  if (street !== (identifiers.address ?? '').trim().toLowerCase()) changes.push('address normalised (case, punctuation, spacing, street suffix)');
  return { street, unit: normaliseWords(identifiers.unit ?? ''), city, state, zip };
}

/** The county of a ZIP: the real one for the places geography.ts knows, else a synthetic one in the state. */
function countyOf(parts: AddressParts): string {
  const known = knownPlace(parts.zip);
  if (known && stateOfFips(known.countyFips) === parts.state) return known.countyFips;
  const county = randomFor('county', parts.zip);
  return `${STATES[parts.state]?.fips ?? '00'}${String(1 + 2 * county.int(0, 99)).padStart(3, '0')}`;
}

/** The census block of a street: every house number on one street in one ZIP shares it. */
function blockIdOf(parts: AddressParts, random: Random): string {
  const streetName = parts.street.replace(/^\d+\s*/, '');
  const countyFips = countyOf(parts);
  const street = randomFor('street', parts.zip, streetName);
  const tract = String(street.int(100, 999_999)).padStart(6, '0');
  const block = String(street.int(1000, 4999) + (random.chance(0.2) ? 1 : 0)).padStart(4, '0');
  return `${countyFips}${tract}${block}`;
}

/** Real CBSA codes end in 0 (metro areas) or 4 (divisions): odd synthetic ones never pose as a real area. */
const syntheticAreaCode = (random: Random) => String(2 * random.int(5_000, 24_999) + 1);

function placeOf(parts: AddressParts): Place {
  const key = `${parts.street}|${parts.unit}|${parts.zip}`;
  const random = randomFor('place', key);
  const blockId = blockIdOf(parts, random);
  // A known city has its real metro area and lies within a few miles of its centre; other ZIPs
  // get a synthetic metro area and lie anywhere in the state.
  const known = knownPlace(parts.zip);
  const area = randomFor('area', blockId.slice(0, 5));
  const msa = known ? known.msa : area.chance(0.85) ? syntheticAreaCode(area) : null;
  const metrodiv = known ? known.metrodiv : msa && area.chance(0.2) ? syntheticAreaCode(area) : null;
  const centre = known ?? STATES[parts.state] ?? { lat: 39.8, lng: -98.6 };
  const spread = known ? 0.05 : 1.5;
  const zipArea = randomFor('zip-area', parts.zip);
  return {
    key,
    street: titleCase(parts.street),
    unit: parts.unit ? parts.unit.toUpperCase() : null,
    city: titleCase(parts.city),
    state: parts.state,
    zip: parts.zip,
    plus4: String(random.int(1, 9999)).padStart(4, '0'),
    slug: slugOf(parts),
    blockId,
    countyFips: blockId.slice(0, 5),
    msa,
    metrodiv,
    lat: Number((centre.lat + zipArea.float(-spread, spread, 4) + random.float(-0.01, 0.01, 6)).toFixed(6)),
    lng: Number((centre.lng + zipArea.float(-spread, spread, 4) + random.float(-0.01, 0.01, 6)).toFixed(6)),
    geoPrecision: random.chance(0.9) ? 'rooftop' : random.pick(['zip9', 'zip5'] as const),
    typicalValue: typicalValue(parts.zip, parts.state),
  };
}

/** Resolves property identifiers as the service's address matcher would: a slug first, else the address. */
export function resolveProperty(identifiers: Readonly<Record<string, string>>): Resolution {
  const changes: string[] = [];
  const parts = identifiers.slug ? partsOfSlug(identifiers.slug) ?? 'slug not recognised' : partsOfIdentifiers(identifiers, changes);
  if (typeof parts === 'string') return { matched: false, errors: [parts], changes };
  const place = placeOf(parts);
  if (fractionOf('unknown-address', place.key) < UNKNOWN_ADDRESS_SHARE) {
    return { matched: false, errors: ['address not found in the address database'], changes };
  }
  return { matched: true, place, changes };
}

/** What a block id tells about its block: the state and county it lies in. */
export interface BlockPlace {
  blockId: string;
  countyFips: string;
  state: string;
  typicalValue: number;
}

export function blockPlace(blockId: string): BlockPlace {
  const state = stateOfFips(blockId) ?? 'US';
  const countyPremium = randomFor('county-premium', blockId.slice(0, 5)).float(0.6, 1.5, 3);
  return { blockId, countyFips: blockId.slice(0, 5), state, typicalValue: typicalValue(undefined, state) * countyPremium };
}
