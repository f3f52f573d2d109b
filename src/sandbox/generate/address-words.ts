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

/**
 * Lower case, punctuation to spaces, spaces collapsed: "43  Valmonte Plaza," -> "43 valmonte plaza".
 * Letters of any alphabet are words, accents kept: "3 Rue Chénier" is "3 rue chénier", not "3 rue
 * ch nier" (composed first, so an accent typed as a combining mark stays with its letter).
 */
export function normalizeWords(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}0-9]+/gu, ' ')
    .trim();
}

/** Latin letters that NFKD does not take apart into a plain letter and an accent. */
const UNACCENTED: ReadonlyMap<string, string> = new Map([
  ['ß', 'ss'],
  ['æ', 'ae'],
  ['œ', 'oe'],
  ['ø', 'o'],
  ['ł', 'l'],
  ['đ', 'd'],
  ['ð', 'd'],
  ['þ', 'th'],
  ['ı', 'i'],
]);

/**
 * Normalised words spelt in ASCII, by transliteration: "peña" -> "pena", "straße" -> "strasse".
 * What a slug is made of (a URL keeps it as it is), and what a property is known by: "3 Rue Chénier"
 * and "3 Rue Chenier", and the slug issued for either, are one house. Letters of other alphabets,
 * which have no such spelling here, are left out.
 */
export function asciiWords(words: string): string {
  if (/^[\x20-\x7e]*$/.test(words)) return words;
  return words
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, (letter) => UNACCENTED.get(letter) ?? ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** A city's first word as the ZIP table spells it: "St. Louis" is its "Saint Louis". */
const CITY_ABBREVIATIONS: ReadonlyMap<string, string> = new Map([
  ['st', 'saint'],
  ['ste', 'sainte'],
  ['ft', 'fort'],
  ['mt', 'mount'],
]);

/** A normalized city name as cities are looked up by: in ASCII, "st"/"ft"/"mt" first spelt out ("st louis" -> "saint louis"). */
export function cityKey(words: string): string {
  const [first, ...rest] = asciiWords(words).split(' ');
  return [CITY_ABBREVIATIONS.get(first!) ?? first, ...rest].join(' ');
}

/** Words naming a road by its number ("route 37", "county road 12"): a trailing number there is not a building's. */
const NUMBERED_ROADS = new Set(['route', 'rte', 'highway', 'hwy', 'interstate', 'county', 'fm', 'sr', 'us']);

/**
 * Street words with the building number first, as the US writes it: where the number follows the
 * street name (Spanish and Puerto Rican style, "calle peña 12") and none leads, it is moved to the
 * front ("12 calle peña"). Undefined when there is no building number on either side.
 */
export function numberFirst(words: string): string | undefined {
  if (/^\d/.test(words)) return words;
  const parts = words.split(' ');
  const last = parts.at(-1)!;
  if (parts.length < 2 || !/^\d+[a-z]?$/.test(last) || parts.some((word) => NUMBERED_ROADS.has(word))) return undefined;
  return [last, ...parts.slice(0, -1)].join(' ');
}

const DIRECTIONAL_ABBREVIATIONS: ReadonlyMap<string, string> = new Map([
  ['north', 'n'],
  ['south', 's'],
  ['east', 'e'],
  ['west', 'w'],
  ['northeast', 'ne'],
  ['northwest', 'nw'],
  ['southeast', 'se'],
  ['southwest', 'sw'],
]);

/** Street words with each directional abbreviated ("1040 west 27th ave" -> "1040 w 27th ave"): one form to look a street up by. */
export const abbreviateDirectionals = (words: string) =>
  words
    .split(' ')
    .map((word) => DIRECTIONAL_ABBREVIATIONS.get(word) ?? word)
    .join(' ');

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

/** The designators as a pattern, the longest first ("apartment" before "apt", "floor" before "fl"). */
const DESIGNATOR_PATTERN = [...UNIT_DESIGNATORS.keys()].sort((a, b) => b.length - a.length).join('|');
/**
 * A unit at the end of an address line as people write it: `Apt 12B`, `Apt. 12B`, `Unit 4`,
 * `Ste 200`, `Suite 200`, `# 12B`, `#12B`, `Apt12B`. What it designates holds a digit or is one
 * letter (`Apt B`), so a street ending in a designator's letters (`Main Street`) is no unit.
 */
const UNIT_AT_END = new RegExp(`^(.*?\\S)[\\s,]+(?:(${DESIGNATOR_PATTERN})(?:\\.?\\s+|\\.?(?=\\d))|#\\s*)([\\p{L}0-9-]+)$`, 'iu');
/** A part of an address line that is only a unit: `Apt 12B` in "350 W 42nd St, Apt 12B, New York, NY". */
const UNIT_ALONE = new RegExp(`^(?:(?:${DESIGNATOR_PATTERN})(?:\\.?\\s+|\\.?(?=\\d))|#\\s*)[\\p{L}0-9-]+$`, 'iu');

export const isUnitText = (text: string) => UNIT_ALONE.test(text.trim());

/**
 * The unit written at the end of a street line, taken apart from it ("350 W 42nd St Apt 12B" is
 * street "350 W 42nd St", unit "apt 12b"; "# 12B" is unit "12b", as `--unit 12B` gives it), or
 * undefined when the line ends in none. The service parses units in the address line; the
 * sandbox does, so that both ways of asking name one home.
 */
export function unitOfLine(line: string): { street: string; unit: string } | undefined {
  const match = UNIT_AT_END.exec(line.trim());
  if (!match || !/\d|^\p{L}$/u.test(match[3]!)) return undefined;
  const designation = normalizeWords(match[3]!);
  return { street: match[1]!, unit: match[2] ? `${normalizeWords(match[2])} ${designation}` : designation };
}

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

/**
 * What a unit is known by: what it designates, whichever designator named it. `Apt 12B`,
 * `Unit 12B`, `Ste 12B`, `# 12B` and a bare `12B` are one home of the building; the answer still
 * shows the designator asked with (`APT 12B`). Takes a canonicalUnit.
 */
export function unitIdentity(unit: string): string {
  if (unit === '') return '';
  const [first, ...rest] = unit.split(' ');
  return UNIT_DESIGNATORS.has(first!) && rest.length > 0 ? `unit ${rest.join(' ')}` : unit;
}
