import { stateCode } from '../../catalog/index.js';
import {
  asciiWords,
  canonicalStreet,
  canonicalUnit,
  cityKey,
  isUnitText,
  normalizeWords,
  numberFirst,
  titleCase,
  unitIdentity,
  unitOfLine,
} from './address-words.js';
import { knownZip } from './address-book.js';
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

/** An address line's pieces: the street apart from its unit (`Apt 12B`), city, state and ZIP where it has them. */
interface LineParts {
  street: string;
  unit?: string | undefined;
  city?: string | undefined;
  state?: string | undefined;
  zip?: string | undefined;
}

/** The line's pieces, the street's unit taken apart from it. */
function splitAddressLine(address: string): LineParts {
  const parts = splitCommas(address);
  const unit = unitOfLine(parts.street);
  return unit ? { ...parts, ...unit } : parts;
}

/** "43 Valmonte Plaza, Palos Verdes Estates, CA 90274" or "43 Valmonte Plaza 90274": the pieces in it. */
function splitCommas(address: string): LineParts {
  const commaParts = address
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  // "350 W 42nd St, Apt 12B, New York, NY": the unit belongs to the street, not the city.
  if (commaParts.length > 1 && isUnitText(commaParts[1]!)) commaParts.splice(0, 2, `${commaParts[0]} ${commaParts[1]}`);
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

/**
 * The canonical street of an address line ("43 Valmonte Plaza, Palos Verdes Estates, CA" -> "43
 * valmonte plz"), or why there is none. What the address book is made with too.
 */
// Exported for test/fixtures/address-book/make.mjs, which builds addresses the sandbox knows.
export function streetOfLine(address: string, changes: string[] = []): string | { error: string } {
  const words = normalizeWords(splitAddressLine(address).street);
  if (words.includes('nomatch')) return { error: 'address not found in the address database' };
  const numbered = numberFirst(words);
  if (numbered === undefined) return { error: 'address has no building number' };
  if (numbered !== words) changes.push('building number moved before the street name');
  return canonicalStreet(numbered);
}

function partsOfIdentifiers(identifiers: Readonly<Record<string, string>>, changes: string[]): AddressParts | string {
  const line = splitAddressLine(identifiers.address ?? '');
  if (!identifiers.zipcode && line.zip) changes.push('zipcode taken from the address line');
  // The unit flag or column wins over one in the line: the spec's unit is for one not already there.
  const unitGiven = identifiers.unit || line.unit || '';
  if (!identifiers.unit && line.unit) changes.push('unit taken from the address line');
  const street = streetOfLine(identifiers.address ?? '', changes);
  if (typeof street !== 'string') return street.error;

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
    zip = zipOfHouse(street, cityGiven, state);
    if (!zip) return `no zipcode known in ${state}`;
    changes.push('zipcode derived from city and state');
  } else {
    return 'address alone is ambiguous: add zipcode, or city and state';
  }
  const city = cityOf(cityGiven, zip, changes);
  if (street !== (identifiers.address ?? '').trim().toLowerCase())
    changes.push('address normalised (case, punctuation, spacing, street suffix)');
  return { street, unit: canonicalUnit(normalizeWords(unitGiven)), city, state, zip };
}

/**
 * The ZIP of a house asked by city and state: the address book's for a house it knows, as the same
 * house asked by ZIP has; else one drawn by street, so every house on a street of a city with
 * several ZIPs gets the same one.
 */
function zipOfHouse(street: string, city: string, state: string): string | undefined {
  const [streetName, cityName] = [asciiWords(street.replace(/^\d+\s*/, '')), cityKey(city)];
  return (
    knownZip(asciiWords(street), cityName, state) ??
    zipForCity(cityName, state, (count) => Math.floor(fractionOf('zip-for-city', streetName, cityName, state) * count))
  );
}

/**
 * The city of an address: the one given, else the ZIP's postal city. A city given that is the
 * postal city under another spelling ("St. Louis" for "Saint Louis") is spelt as the postal
 * city, as the service's answers (and so the slug) have it; one that differs from it only by its
 * accents ("Cañon City") is kept, as the ZIP table has none.
 */
function cityOf(given: string, zip: string, changes: string[]): string {
  const postal = normalizeWords(postalCity(zip));
  if (!given) changes.push('city set from the zipcode');
  else if (cityKey(given) === cityKey(postal) && asciiWords(given) !== asciiWords(postal)) changes.push('city spelt as its postal name');
  else return given;
  return postal;
}

/** The census block of a street: every house number on one street in one ZIP shares it, a fifth of them the next block. */
function blockIdOf(parts: AddressParts, random: Random): string {
  const { tract, block } = streetBlock(parts.zip, asciiWords(parts.street.replace(/^\d+\s*/, '')));
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
  // Spelt in ASCII, as the slug is: the house asked with or without its accents, or by its slug, is one.
  // A unit by what it designates: `Apt 12B` and `--unit 12B` are one home.
  const key = asciiWords(`${parts.street}|${unitIdentity(parts.unit)}|${parts.zip}`);
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
