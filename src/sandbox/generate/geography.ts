import { fractionOf } from './random.js';
import { Remembered } from './remembered.js';
import { zipTable, type ZipRecord } from './zip-table.js';

/**
 * US geography for the synthetic answers: real ZIPs from the ZIP table (zip-table.ts); for ZIPs it
 * does not list, which state a ZIP3 belongs to and the state's rough centre. Price levels per state
 * and for a few metro areas are approximations, so that 902xx California costs more than Baltimore.
 */

interface StateGeo {
  fips: string;
  lat: number;
  lng: number;
  /** Home-price level relative to the national median. */
  priceLevel: number;
}

const geo = (fips: string, lat: number, lng: number, priceLevel: number): StateGeo => ({ fips, lat, lng, priceLevel });

export const STATES: Readonly<Record<string, StateGeo>> = {
  AL: geo('01', 32.8, -86.8, 0.65),
  AK: geo('02', 61.4, -150.0, 1.0),
  AZ: geo('04', 33.7, -111.4, 1.1),
  AR: geo('05', 34.9, -92.4, 0.6),
  CA: geo('06', 36.8, -119.4, 2.0),
  CO: geo('08', 39.0, -105.5, 1.5),
  CT: geo('09', 41.6, -72.7, 1.1),
  DE: geo('10', 39.0, -75.5, 1.0),
  DC: geo('11', 38.9, -77.0, 1.8),
  FL: geo('12', 28.6, -82.4, 1.1),
  GA: geo('13', 32.7, -83.4, 0.9),
  HI: geo('15', 20.8, -156.3, 2.3),
  ID: geo('16', 44.1, -114.7, 1.2),
  IL: geo('17', 40.0, -89.2, 0.8),
  IN: geo('18', 39.9, -86.3, 0.65),
  IA: geo('19', 42.0, -93.5, 0.65),
  KS: geo('20', 38.5, -98.4, 0.65),
  KY: geo('21', 37.5, -85.3, 0.65),
  LA: geo('22', 31.1, -92.0, 0.65),
  ME: geo('23', 45.4, -69.2, 1.0),
  MD: geo('24', 39.0, -76.8, 1.1),
  MA: geo('25', 42.3, -71.8, 1.7),
  MI: geo('26', 44.3, -85.4, 0.7),
  MN: geo('27', 46.3, -94.3, 0.9),
  MS: geo('28', 32.7, -89.7, 0.55),
  MO: geo('29', 38.4, -92.5, 0.7),
  MT: geo('30', 47.0, -109.6, 1.2),
  NE: geo('31', 41.5, -99.8, 0.7),
  NV: geo('32', 39.3, -116.6, 1.2),
  NH: geo('33', 43.7, -71.6, 1.2),
  NJ: geo('34', 40.2, -74.7, 1.4),
  NM: geo('35', 34.4, -106.1, 0.85),
  NY: geo('36', 42.9, -75.5, 1.3),
  NC: geo('37', 35.6, -79.4, 0.9),
  ND: geo('38', 47.5, -100.5, 0.7),
  OH: geo('39', 40.3, -82.8, 0.65),
  OK: geo('40', 35.6, -97.5, 0.6),
  OR: geo('41', 44.0, -120.6, 1.4),
  PA: geo('42', 40.9, -77.8, 0.8),
  RI: geo('44', 41.7, -71.5, 1.2),
  SC: geo('45', 33.9, -80.9, 0.85),
  SD: geo('46', 44.4, -100.2, 0.8),
  TN: geo('47', 35.9, -86.4, 0.9),
  TX: geo('48', 31.5, -99.3, 0.9),
  UT: geo('49', 39.3, -111.7, 1.4),
  VT: geo('50', 44.1, -72.7, 1.1),
  VA: geo('51', 37.5, -78.8, 1.1),
  WA: geo('53', 47.4, -120.5, 1.6),
  WV: geo('54', 38.6, -80.6, 0.5),
  WI: geo('55', 44.6, -89.9, 0.8),
  WY: geo('56', 43.0, -107.5, 1.0),
  AS: geo('60', -14.3, -170.7, 0.5),
  GU: geo('66', 13.4, 144.8, 0.9),
  MP: geo('69', 15.2, 145.7, 0.6),
  PR: geo('72', 18.2, -66.5, 0.45),
  VI: geo('78', 18.3, -64.9, 0.8),
};

const STATE_BY_FIPS = new Map(Object.entries(STATES).map(([code, state]) => [state.fips, code]));

/** First three ZIP digits, inclusive ranges, to state. */
const ZIP3_RANGES: ReadonlyArray<readonly [number, number, string]> = [
  [6, 9, 'PR'],
  [10, 27, 'MA'],
  [28, 29, 'RI'],
  [30, 38, 'NH'],
  [39, 49, 'ME'],
  [50, 54, 'VT'],
  [55, 55, 'MA'],
  [56, 59, 'VT'],
  [60, 69, 'CT'],
  [70, 89, 'NJ'],
  [100, 149, 'NY'],
  [150, 196, 'PA'],
  [197, 199, 'DE'],
  [200, 205, 'DC'],
  [206, 219, 'MD'],
  [220, 246, 'VA'],
  [247, 268, 'WV'],
  [270, 289, 'NC'],
  [290, 299, 'SC'],
  [300, 319, 'GA'],
  [320, 349, 'FL'],
  [350, 369, 'AL'],
  [370, 385, 'TN'],
  [386, 397, 'MS'],
  [398, 399, 'GA'],
  [400, 427, 'KY'],
  [430, 459, 'OH'],
  [460, 479, 'IN'],
  [480, 499, 'MI'],
  [500, 528, 'IA'],
  [530, 549, 'WI'],
  [550, 567, 'MN'],
  [569, 569, 'DC'],
  [570, 577, 'SD'],
  [580, 588, 'ND'],
  [590, 599, 'MT'],
  [600, 629, 'IL'],
  [630, 658, 'MO'],
  [660, 679, 'KS'],
  [680, 693, 'NE'],
  [700, 714, 'LA'],
  [716, 729, 'AR'],
  [730, 749, 'OK'],
  [750, 799, 'TX'],
  [800, 816, 'CO'],
  [820, 831, 'WY'],
  [832, 838, 'ID'],
  [840, 847, 'UT'],
  [850, 865, 'AZ'],
  [870, 884, 'NM'],
  [885, 885, 'TX'],
  [889, 898, 'NV'],
  [900, 961, 'CA'],
  [967, 968, 'HI'],
  [969, 969, 'GU'],
  [970, 979, 'OR'],
  [980, 994, 'WA'],
  [995, 999, 'AK'],
];

/**
 * Places the synthetic data should recognise by name: their price premium over the state level,
 * and their real county, metro area (MSA and metropolitan division) and centre, so that a real
 * address there gets plausible geography.
 */
interface KnownPlace {
  city: string;
  premium: number;
  countyFips: string;
  msa: string;
  metrodiv: string | null;
  lat: number;
  lng: number;
}

const known = (
  city: string,
  premium: number,
  countyFips: string,
  msa: string,
  metrodiv: string | null,
  lat: number,
  lng: number,
): KnownPlace => ({
  city,
  premium,
  countyFips,
  msa,
  metrodiv,
  lat,
  lng,
});

const KNOWN_ZIP3: Readonly<Record<string, KnownPlace>> = {
  '100': known('New York', 2.0, '36061', '35620', '35614', 40.754, -73.984),
  '021': known('Boston', 1.3, '25025', '14460', '14454', 42.356, -71.06),
  '212': known('Baltimore', 0.55, '24510', '12580', null, 39.29, -76.612),
  '482': known('Detroit', 0.45, '26163', '19820', '19804', 42.331, -83.046),
  '606': known('Chicago', 1.2, '17031', '16980', '16984', 41.878, -87.63),
  '900': known('Los Angeles', 1.2, '06037', '31080', '31084', 34.052, -118.244),
  '902': known('Palos Verdes Estates', 1.9, '06037', '31080', '31084', 33.787, -118.392),
  '941': known('San Francisco', 1.7, '06075', '41860', '41884', 37.775, -122.419),
  '981': known('Seattle', 1.3, '53033', '42660', '42644', 47.606, -122.332),
  // Not in the ZIP table, which leaves out the territories: 009xx is San Juan's, not a made-up town's.
  '009': known('San Juan', 1.3, '72127', '41980', null, 18.466, -66.106),
};

const TOWN_NAMES = [
  'Springfield',
  'Fairview',
  'Riverside',
  'Franklin',
  'Greenville',
  'Madison',
  'Clinton',
  'Georgetown',
  'Salem',
  'Oak Park',
  'Lakewood',
  'Centerville',
  'Ashland',
  'Milton',
  'Dover',
  'Hudson',
  'Marion',
  'Newport',
  'Bristol',
  'Oxford',
  'Kingston',
  'Burlington',
  'Manchester',
  'Chester',
  'Jackson',
  'Arlington',
  'Winchester',
  'Auburn',
];

/** The real ZIP table, keyed by the states' FIPS codes above. */
const table = () => zipTable((state) => STATES[state]?.fips);

/** What the ZIP table knows of a ZIP: postal city, state, county and centre. */
export function zipRecord(zip: string): ZipRecord | undefined {
  return table().record(zip);
}

export function stateOfZip(zip: string): string | undefined {
  const known = zipRecord(zip)?.state;
  if (known) return known;
  const zip3 = Number(zip.slice(0, 3));
  return ZIP3_RANGES.find(([from, to]) => zip3 >= from && zip3 <= to)?.[2];
}

export function stateOfFips(fips: string): string | undefined {
  return STATE_BY_FIPS.get(fips.slice(0, 2));
}

/** The postal city of a ZIP: the table's, else a known city for a few ZIP3s, else a common town name. */
export function postalCity(zip: string): string {
  return zipRecord(zip)?.city ?? KNOWN_ZIP3[zip.slice(0, 3)]?.city ?? TOWN_NAMES[Math.floor(fractionOf('city', zip) * TOWN_NAMES.length)]!;
}

/** The recognised place a ZIP lies in, if any: its real metro area and price premium. */
export function knownPlace(zip: string): KnownPlace | undefined {
  return KNOWN_ZIP3[zip.slice(0, 3)];
}

const METRO_BY_COUNTY = new Map(Object.values(KNOWN_ZIP3).map((place) => [place.countyFips, place]));
const COUNTY_BY_METRO = new Map(Object.values(KNOWN_ZIP3).map((place) => [place.msa, place.countyFips]));

/** The main county of a known metro area (MSA code). */
export function knownMetroCounty(msa: string): string | undefined {
  return COUNTY_BY_METRO.get(msa);
}

/** The real metro area (MSA and division) of a county one of the known places lies in. */
export function knownMetroOfCounty(countyFips: string): { msa: string; metrodiv: string | null } | undefined {
  return METRO_BY_COUNTY.get(countyFips);
}

/** How many leading words two names share: "palos verdes estates" and "palos verdes peninsula" share 2. */
function sharedLeadingWords(a: readonly string[], b: readonly string[]): number {
  let count = 0;
  while (count < a.length && count < b.length && a[count] === b[count]) count++;
  return count;
}

const cityZips = new Remembered<readonly string[]>();

/**
 * The ZIPs a city (by its cityKey) given without one may have. The table names each ZIP by its postal city only,
 * so a city it does not name (Palos Verdes Estates, postal city Palos Verdes Peninsula) takes the
 * ZIPs of the cities sharing its first two or more words, and a city with no such neighbour any
 * ZIP of its state.
 */
// Exported for test/fixtures/address-book/make.mjs, which builds addresses the sandbox knows.
export function zipsOfCity(city: string, state: string): readonly string[] {
  return cityZips.get(`${city}|${state}`, () => nearestCityZips(city, state));
}

function nearestCityZips(city: string, state: string): readonly string[] {
  const { byCity, citiesOf } = table().cities();
  const exact = byCity.get(`${city}|${state}`);
  if (exact) return exact;
  const words = city.split(' ');
  const cities = citiesOf.get(state) ?? [];
  const shared = cities.map((candidate) => sharedLeadingWords(words, candidate.split(' ')));
  const best = Math.max(0, ...shared);
  const near = best >= 2 ? cities.filter((_, index) => shared[index] === best) : cities;
  return near.flatMap((candidate) => byCity.get(`${candidate}|${state}`) ?? []);
}

/**
 * A ZIP for a city given without one: one of the city's ZIPs from the table (`pick` chooses, so
 * a street keeps one ZIP), or, in a state the table does not cover, a synthetic ZIP of the state.
 */
export function zipForCity(city: string, state: string, pick: (count: number) => number): string | undefined {
  const real = zipsOfCity(city, state);
  if (real.length > 0) return real[pick(real.length)];
  const zip3s = ZIP3_RANGES.filter(([, , code]) => code === state).flatMap(([from, to]) =>
    Array.from({ length: to - from + 1 }, (_, offset) => from + offset),
  );
  if (zip3s.length === 0) return undefined;
  const zip3 = zip3s[pick(zip3s.length)]!;
  return `${String(zip3).padStart(3, '0')}${String(pick(100)).padStart(2, '0')}`;
}

/** Typical home value in dollars for a ZIP in a state, before the per-property spread. */
export function typicalValue(zip: string | undefined, state: string): number {
  const premium = zip === undefined ? 1 : (KNOWN_ZIP3[zip.slice(0, 3)]?.premium ?? 1);
  return 330_000 * (STATES[state]?.priceLevel ?? 1) * premium;
}
