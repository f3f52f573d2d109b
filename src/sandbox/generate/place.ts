import { stateCode } from '../../catalog/index.js';
import { canonicalStreet, canonicalUnit, normalizeWords, titleCase } from './address-words.js';
import { countyOf, countyPremium, streetBlock, syntheticMetroArea, zipOffset } from './area-draws.js';
import {
  STATES,
  knownMetroOfCounty,
  knownPlace,
  postalCity,
  stateOfFips,
  stateOfZip,
  typicalValue,
  zipForCity,
  zipRecord,
} from './geography.js';
import { fractionOf, randomFor, type Random } from './random.js';
import { fullAddressOf, partsOfSlug, slugOf, type AddressParts } from './slug.js';

/** A property the synthetic address database knows: every value here follows from key alone. */
export interface Place {
  /** street + unit + ZIP, normalized: the identity all property data derives from. */
  key: string;
  street: string;
  unit: string | null;
  city: string;
  state: string;
  zip: string;
  plus4: string;
  slug: string;
  /** `43 Valmonte Plz Palos Verdes Estates CA 90274`, as the service writes address_full. */
  fullAddress: string;
  blockId: string;
  countyFips: string;
  msa: string | null;
  metrodiv: string | null;
  lat: number;
  lng: number;
  geoPrecision: 'rooftop' | 'zip9' | 'zip5';
  typicalValue: number;
}

export type Resolution = { matched: true; place: Place; changes: string[] } | { matched: false; errors: string[]; changes: string[] };

/** A stable share of well-formed addresses the address database does not know. */
const UNKNOWN_ADDRESS_SHARE = 0.03;

/** "43 Valmonte Plaza, Palos Verdes Estates, CA 90274" or "43 Valmonte Plaza 90274": the pieces in it. */
function splitAddressLine(address: string): { street: string; city?: string; state?: string; zip?: string } {
  const commaParts = address
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
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
  const street = canonicalStreet(normalizeWords(line.street));
  if (street.includes('nomatch')) return 'address not found in the address database';
  if (!/^\d/.test(street)) return 'address has no building number';

  const zipGiven = identifiers.zipcode ?? line.zip;
  const stateGiven = identifiers.state ?? line.state;
  const cityGiven = normalizeWords(identifiers.city ?? line.city ?? '');
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
    // Drawn by street, so every house on a street of a city with several ZIPs gets the same one.
    const streetName = street.replace(/^\d+\s*/, '');
    zip = zipForCity(cityGiven, state, (count) => Math.floor(fractionOf('zip-for-city', streetName, cityGiven, state ?? '') * count));
    if (!zip) return `no zipcode known in ${state}`;
    changes.push('zipcode derived from city and state');
  } else {
    return 'address alone is ambiguous: add zipcode, or city and state';
  }
  const city = cityGiven || normalizeWords(postalCity(zip));
  if (!cityGiven) changes.push('city set from the zipcode');
  if (street !== (identifiers.address ?? '').trim().toLowerCase())
    changes.push('address normalised (case, punctuation, spacing, street suffix)');
  return { street, unit: canonicalUnit(normalizeWords(identifiers.unit ?? '')), city, state, zip };
}

/** The census block of a street: every house number on one street in one ZIP shares it, a fifth of them the next block. */
function blockIdOf(parts: AddressParts, random: Random): string {
  const { tract, block } = streetBlock(parts.zip, parts.street.replace(/^\d+\s*/, ''));
  return `${countyOf(parts.state, parts.zip)}${tract}${String(block + (random.chance(0.2) ? 1 : 0)).padStart(4, '0')}`;
}

/** Where a property lies: near its ZIP's centre from the table, else as the synthetic geography places the ZIP. */
function zipCentreOf(parts: AddressParts): { lat: number; lng: number } {
  const record = zipRecord(parts.zip);
  if (record && record.state === parts.state) return record;
  const centre = knownPlace(parts.zip) ?? STATES[parts.state] ?? { lat: 39.8, lng: -98.6 };
  const offset = zipOffset(parts.zip);
  return { lat: centre.lat + offset.lat, lng: centre.lng + offset.lng };
}

function placeOf(parts: AddressParts): Place {
  const key = `${parts.street}|${parts.unit}|${parts.zip}`;
  const random = randomFor('place', key);
  const blockId = blockIdOf(parts, random);
  const countyFips = blockId.slice(0, 5);
  // A known metro's county has its real metro area; other counties get a synthetic one.
  const { msa, metrodiv } = knownMetroOfCounty(countyFips) ?? syntheticMetroArea(countyFips);
  const centre = zipCentreOf(parts);
  return {
    key,
    street: titleCase(parts.street),
    unit: parts.unit ? parts.unit.toUpperCase() : null,
    city: titleCase(parts.city),
    state: parts.state,
    zip: parts.zip,
    plus4: String(random.int(1, 9999)).padStart(4, '0'),
    slug: slugOf(parts),
    fullAddress: fullAddressOf(parts),
    blockId,
    countyFips,
    msa,
    metrodiv,
    lat: Number((centre.lat + random.float(-0.01, 0.01, 6)).toFixed(6)),
    lng: Number((centre.lng + random.float(-0.01, 0.01, 6)).toFixed(6)),
    geoPrecision: random.chance(0.9) ? 'rooftop' : random.pick(['zip9', 'zip5'] as const),
    typicalValue: typicalValue(parts.zip, parts.state),
  };
}

/** Resolves property identifiers as the service's address matcher would: a slug first, else the address. */
export function resolveProperty(identifiers: Readonly<Record<string, string>>): Resolution {
  const changes: string[] = [];
  const parts = identifiers.slug ? (partsOfSlug(identifiers.slug) ?? 'slug not recognised') : partsOfIdentifiers(identifiers, changes);
  // An unresolved address has nothing canonical to report changes to.
  if (typeof parts === 'string') return { matched: false, errors: [parts], changes: [] };
  const place = placeOf(parts);
  if (fractionOf('unknown-address', place.key) < UNKNOWN_ADDRESS_SHARE) {
    return { matched: false, errors: ['address not found in the address database'], changes: [] };
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
  const countyFips = blockId.slice(0, 5);
  return { blockId, countyFips, state, typicalValue: typicalValue(undefined, state) * countyPremium(countyFips) };
}
