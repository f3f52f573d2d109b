import { fractionOf } from './random.js';

/**
 * Names of counties and metro areas, by code: the real name for the areas geography.ts places
 * known cities in and for the counties of the ZIP table, else a synthetic one drawn from the code
 * alone, so that one code has one name in every answer.
 */

// Census 2023 CBSA delineation (census facts)
const METRO_NAMES: Readonly<Record<string, string>> = {
  '12580': 'Baltimore-Columbia-Towson, MD',
  '14460': 'Boston-Cambridge-Newton, MA-NH',
  '16980': 'Chicago-Naperville-Elgin, IL-IN',
  '19820': 'Detroit-Warren-Dearborn, MI',
  '31080': 'Los Angeles-Long Beach-Anaheim, CA',
  '35620': 'New York-Newark-Jersey City, NY-NJ',
  '41860': 'San Francisco-Oakland-Fremont, CA',
  '42660': 'Seattle-Tacoma-Bellevue, WA',
};

// Census county names (census facts)
const COUNTY_NAMES: Readonly<Record<string, string>> = {
  '06037': 'Los Angeles County',
  '06075': 'San Francisco County',
  '17031': 'Cook County',
  '24510': 'Baltimore city',
  '25025': 'Suffolk County',
  '26163': 'Wayne County',
  '36061': 'New York County',
  '53033': 'King County',
};

const COUNTY_WORDS = [
  'Oak',
  'Maple',
  'Cedar',
  'Willow',
  'Highland',
  'Lake',
  'Washington',
  'Jefferson',
  'Lincoln',
  'Union',
  'Grant',
  'Marion',
];
const METRO_CITIES = [
  'Springfield',
  'Fairview',
  'Riverside',
  'Franklin',
  'Greenville',
  'Madison',
  'Clinton',
  'Georgetown',
  'Salem',
  'Auburn',
];

const drawn = (words: readonly string[], ...key: string[]) => words[Math.floor(fractionOf(...key) * words.length)]!;

/**
 * The census form of a ZIP-table county name: "Baltimore (city)" is "Baltimore city", Louisiana
 * has parishes; Alaska's boroughs and census areas keep the table's name.
 */
function censusCountyName(name: string, countyFips: string): string {
  const city = /^(.*) \(city\)$/.exec(name);
  if (city) return `${city[1]} city`;
  if (countyFips.startsWith('02')) return name;
  return `${name} ${countyFips.startsWith('22') ? 'Parish' : 'County'}`;
}

/** A county's name; `tableName` is the ZIP table's name for it, when the ZIP asked about lies in it. */
export function countyName(countyFips: string, tableName?: string): string {
  return (
    COUNTY_NAMES[countyFips] ??
    (tableName ? censusCountyName(tableName, countyFips) : `${drawn(COUNTY_WORDS, 'county-name', countyFips)} County`)
  );
}

/** A synthetic metro area is named as the census names them: its main city, then its state. */
export function msaName(msa: string, state: string): string {
  return METRO_NAMES[msa] ?? `${drawn(METRO_CITIES, 'msa-name', msa)}, ${state}`;
}
