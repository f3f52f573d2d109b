/**
 * Street words as the address database keeps them. Suffixes are stored in their USPS abbreviation,
 * as the service's own slugs show (`43-Valmonte-Plz-Palos-Verdes-Estates-CA-90274`): "43 Valmonte
 * Plaza" and "43 Valmonte Plz" are one property.
 */
// Maps and sets, not object keys: looking a word up as an object key turns it into a reference to
// its interned copy in place, and V8's Array join then builds a two-byte string of the street. The
// address, slug and whole response built from it would take twice the memory and time to encode.
const SUFFIXES: ReadonlyMap<string, string> = new Map([
  ['alley', 'aly'],
  ['avenue', 'ave'],
  ['boulevard', 'blvd'],
  ['circle', 'cir'],
  ['court', 'ct'],
  ['cove', 'cv'],
  ['crossing', 'xing'],
  ['drive', 'dr'],
  ['expressway', 'expy'],
  ['freeway', 'fwy'],
  ['highway', 'hwy'],
  ['lane', 'ln'],
  ['loop', 'loop'],
  ['parkway', 'pkwy'],
  ['place', 'pl'],
  ['plaza', 'plz'],
  ['point', 'pt'],
  ['road', 'rd'],
  ['row', 'row'],
  ['square', 'sq'],
  ['street', 'st'],
  ['terrace', 'ter'],
  ['trail', 'trl'],
  ['way', 'way'],
]);
const ABBREVIATIONS = new Set(SUFFIXES.values());

const DIRECTIONALS = new Set([
  'n',
  's',
  'e',
  'w',
  'ne',
  'nw',
  'se',
  'sw',
  'north',
  'south',
  'east',
  'west',
  'northeast',
  'northwest',
  'southeast',
  'southwest',
]);

/** Lower case, punctuation to spaces, spaces collapsed: "43  Valmonte Plaza," -> "43 valmonte plaza". */
export function normalizeWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

export const isStreetSuffix = (word: string) => ABBREVIATIONS.has(word) || SUFFIXES.has(word);
export const isDirectional = (word: string) => DIRECTIONALS.has(word);

/**
 * Normalized street words with the suffix abbreviated: the last word, or the one before a trailing
 * directional ("1745 t street southeast" -> "1745 t st southeast"). A street that is only a
 * suffix word after the number ("100 court") keeps it as its name.
 */
export function canonicalStreet(words: string): string {
  const parts = words.split(' ');
  const at = parts.length > 3 && isDirectional(parts.at(-1)!) ? parts.length - 2 : parts.length - 1;
  const abbreviation = SUFFIXES.get(parts[at]!);
  if (at >= 2 && abbreviation) parts[at] = abbreviation;
  return parts.join(' ');
}

/** Normalized words with each word's first letter capitalised: "43 valmonte plz" -> "43 Valmonte Plz". */
export const titleCase = (words: string) =>
  words
    .split(' ')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');

const UNIT_DESIGNATORS: ReadonlyMap<string, string> = new Map([
  ['apt', 'apt'],
  ['apartment', 'apt'],
  ['unit', 'unit'],
  ['ste', 'ste'],
  ['suite', 'ste'],
  ['bldg', 'bldg'],
  ['building', 'bldg'],
  ['fl', 'fl'],
  ['floor', 'fl'],
  ['rm', 'rm'],
  ['room', 'rm'],
  ['lot', 'lot'],
  ['spc', 'spc'],
  ['space', 'spc'],
]);

/** A unit designator followed by what it designates ("apt 4", "ste 200"): a unit inside a service slug. */
export const isUnitAt = (words: readonly string[], index: number) =>
  UNIT_DESIGNATORS.has(words[index] ?? '') && /\d|^[a-z]$/.test(words[index + 1] ?? '');

/**
 * Normalized unit words in one form: the designator abbreviated, "unit" when none is given
 * ("4b" -> "unit 4b", "Apartment 4" -> "apt 4"), so a unit reads back from a slug as it was issued.
 */
export function canonicalUnit(words: string): string {
  if (words === '') return '';
  const [first, ...rest] = words.split(' ');
  const designator = UNIT_DESIGNATORS.get(first!);
  return designator ? [designator, ...rest].join(' ') : `unit ${words}`;
}
