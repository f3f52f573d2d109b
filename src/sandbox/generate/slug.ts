import {
  asciiWords,
  canonicalStreet,
  canonicalUnit,
  isDirectional,
  isStreetSuffix,
  isUnitAt,
  normalizeWords,
  titleCase,
} from './address-words.js';
import { postalCity } from './geography.js';

/** A canonical address: normalized words, the identity every property's data derives from. */
export interface AddressParts {
  street: string;
  unit: string;
  city: string;
  state: string;
  zip: string;
}

/** The full address in the service's form: `43 Valmonte Plz Palos Verdes Estates CA 90274`, a unit after the street. */
export function fullAddressOf(parts: AddressParts): string {
  const unit = parts.unit ? [parts.unit.toUpperCase()] : [];
  return [titleCase(parts.street), ...unit, titleCase(parts.city), parts.state, parts.zip].join(' ');
}

/**
 * The service's slug: the full address with hyphens, `43-Valmonte-Plz-Palos-Verdes-Estates-CA-90274`,
 * spelt in ASCII so that it goes into a URL as it is: `3-Rue-Chenier-...` for "3 Rue Chénier".
 */
export function slugOf(parts: AddressParts): string {
  const ascii = { ...parts, street: asciiWords(parts.street), unit: asciiWords(parts.unit), city: asciiWords(parts.city) };
  return fullAddressOf(ascii).replace(/ /g, '-');
}

/**
 * Slugs an earlier sandbox issued, still accepted: the canonical parts separated by `_`,
 * `43-valmonte-plz_palos-verdes-estates_ca_90274`, with the unit as a second part when present.
 */
function partsOfSandboxSlug(slug: string): AddressParts | undefined {
  const pieces = slug.trim().toLowerCase().split('_');
  if (pieces.length !== 4 && pieces.length !== 5) return undefined;
  const [street, unit, city, state, zip] = pieces.length === 5 ? pieces : [pieces[0], '', ...pieces.slice(1)];
  const words = (piece: string | undefined) => normalizeWords((piece ?? '').replace(/-/g, ' '));
  if (!/^\d{5}$/.test(zip ?? '') || !/^[a-z]{2}$/.test(state ?? '') || !street || !city) return undefined;
  return { street: words(street), unit: canonicalUnit(words(unit)), city: words(city), state: (state ?? '').toUpperCase(), zip: zip ?? '' };
}

/**
 * Where the street ends in the words of a service slug: before a unit, else before the ZIP's
 * postal city when the slug ends with it, else after the last street suffix (and a directional
 * after it), else before the last word.
 */
function streetLength(words: readonly string[], zip: string): number {
  const unitAt = words.findIndex((_, index) => index >= 2 && isUnitAt(words, index));
  if (unitAt > 0) return unitAt;
  const city = asciiWords(normalizeWords(postalCity(zip))).split(' ');
  if (words.length > city.length && words.slice(-city.length).join(' ') === city.join(' ')) return words.length - city.length;
  const suffixAt = words.findLastIndex((word, index) => index >= 2 && index < words.length - 1 && isStreetSuffix(word));
  if (suffixAt < 0) return words.length - 1;
  return suffixAt + 2 < words.length && isDirectional(words[suffixAt + 1]!) ? suffixAt + 2 : suffixAt + 1;
}

/**
 * The service's own slug form, as the sandbox issues it and clients of the real service hold them:
 * words joined by hyphens with the state and ZIP last. It does not mark where the street ends, so
 * streetLength decides; a unit is a designator and the word after it.
 */
function partsOfServiceSlug(slug: string): AddressParts | undefined {
  const match = /^(\d[a-z0-9-]*)-([a-z]{2})-(\d{5})$/i.exec(slug.trim());
  if (!match) return undefined;
  const words = normalizeWords(match[1]!).split(' ');
  const zip = match[3]!;
  if (words.length < 3) return undefined;
  const length = streetLength(words, zip);
  const unitLength = isUnitAt(words, length) ? 2 : 0;
  const city = words.slice(length + unitLength).join(' ');
  if (city === '') return undefined;
  return {
    street: words.slice(0, length).join(' '),
    unit: words.slice(length, length + unitLength).join(' '),
    city,
    state: match[2]!.toUpperCase(),
    zip,
  };
}

/** The canonical parts a slug names, in either form (street suffix abbreviated); undefined when it is neither. */
export function partsOfSlug(slug: string): AddressParts | undefined {
  const parts = slug.includes('_') ? partsOfSandboxSlug(slug) : partsOfServiceSlug(slug);
  return parts && { ...parts, street: canonicalStreet(parts.street) };
}
