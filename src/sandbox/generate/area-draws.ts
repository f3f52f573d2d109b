import { STATES, knownPlace, stateOfFips, zipRecord } from './geography.js';
import { randomFor, type Random } from './random.js';
import { Remembered } from './remembered.js';

/**
 * What the synthetic data draws per area rather than per property: the county of a ZIP, the census
 * tract and block of a street, the metro area of a county, where a ZIP lies. Each follows from its
 * area alone, so it is drawn once per area and remembered for the next property there.
 */

const counties = new Remembered<string>();

/** The county of a ZIP: the ZIP table's, else the known place's, else a synthetic one in the state. */
export function countyOf(state: string, zip: string): string {
  return counties.get(`${state} ${zip}`, () => {
    const record = zipRecord(zip);
    if (record?.countyFips && record.state === state) return record.countyFips;
    const known = knownPlace(zip);
    if (known && stateOfFips(known.countyFips) === state) return known.countyFips;
    const county = randomFor('county', zip);
    return `${STATES[state]?.fips ?? '00'}${String(1 + 2 * county.int(0, 99)).padStart(3, '0')}`;
  });
}

const streets = new Remembered<{ tract: string; block: number }>();

/** A street's census tract and block within its ZIP: every house number on it shares them. */
export function streetBlock(zip: string, streetName: string): { tract: string; block: number } {
  return streets.get(`${zip} ${streetName}`, () => {
    const street = randomFor('street', zip, streetName);
    return { tract: String(street.int(100, 999_999)).padStart(6, '0'), block: street.int(1000, 4999) };
  });
}

/** Real CBSA codes end in 0 (metro areas) or 4 (divisions): odd synthetic ones never pose as a real area. */
const syntheticAreaCode = (random: Random) => String(2 * random.int(5_000, 24_999) + 1);

const metroAreas = new Remembered<{ msa: string | null; metrodiv: string | null }>();

/** The synthetic metro area (MSA) and division of a county outside the known places; most counties have one. */
export function syntheticMetroArea(countyFips: string): { msa: string | null; metrodiv: string | null } {
  return metroAreas.get(countyFips, () => {
    const area = randomFor('area', countyFips);
    const msa = area.chance(0.85) ? syntheticAreaCode(area) : null;
    return { msa, metrodiv: msa && area.chance(0.2) ? syntheticAreaCode(area) : null };
  });
}

const zipOffsets = new Remembered<{ lat: number; lng: number }>();

/**
 * Where a ZIP lies from its centre: a known city's ZIPs within a few miles of the city's centre,
 * other ZIPs anywhere in the state.
 */
export function zipOffset(zip: string): { lat: number; lng: number } {
  return zipOffsets.get(zip, () => {
    const spread = knownPlace(zip) ? 0.05 : 1.5;
    const zipArea = randomFor('zip-area', zip);
    const lat = zipArea.float(-spread, spread, 4);
    return { lat, lng: zipArea.float(-spread, spread, 4) };
  });
}

const countyPremiums = new Remembered<number>();

/** A county's price level relative to its state's. */
export function countyPremium(countyFips: string): number {
  return countyPremiums.get(countyFips, () => randomFor('county-premium', countyFips).float(0.6, 1.5, 3));
}

const zipGrowths = new Remembered<{ value: number; rent: number }>();

/** The annual drift of a ZIP's price and rent indexes. */
export function zipGrowth(zip: string): { value: number; rent: number } {
  return zipGrowths.get(zip, () => {
    const index = randomFor('zip-index', zip);
    const value = index.float(-0.02, 0.07, 4);
    return { value, rent: index.float(-0.01, 0.05, 4) };
  });
}

/**
 * The annual drift of an area's prices at any level (block, blockgroup, zip, msa, state): a ZIP's
 * is its index drift above, so the ZIP's series, its HPI adjustments and its homes' forecasts follow
 * one path; other levels draw theirs from the code.
 */
export function areaGrowth(level: string, code: string): number {
  return level === 'zip' ? zipGrowth(code).value : randomFor('area-growth', level, code).float(-0.02, 0.07, 4);
}
