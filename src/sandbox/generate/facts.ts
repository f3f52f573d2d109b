import { zipGrowth } from './area-draws.js';
import { DATA_DATE } from './dates.js';
import { homeFeatures } from './features.js';
import type { BlockPlace, Place } from './place.js';
import { randomFor, round } from './random.js';

/** The floor area of the area's typical home, whose price typicalValue is. */
export const TYPICAL_SQFT = 1800;

/**
 * The handful of numbers several endpoints must agree on for one property (its value, its rent,
 * its size), drawn once from the property's key. Endpoint results read them instead of drawing
 * their own, so that rental_yield.value equals value.price_mean and details agree with
 * value_details_adjusted.
 */
export interface PropertyFacts {
  valueMean: number;
  valueFsd: number;
  rentMean: number;
  rentFsd: number;
  landMean: number;
  landFsd: number;
  sqft: number;
  yearBuilt: number;
  /** The block statistics' property_type code for the kind of home (SFD for a house). */
  blockCode: string;
  beds: number;
  baths: number;
  pool: boolean;
  /** Annual drift of the ZIP's price and rent indexes. */
  valueGrowth: number;
  rentGrowth: number;
  /** Values for schema fields of the same name, wherever they appear in a result. */
  fields: Readonly<Record<string, unknown>>;
}

export function propertyFacts(place: Place): PropertyFacts {
  const random = randomFor('facts', place.key);
  const sqft = random.int(14, 84) * 50;
  const beds = Math.max(1, Math.min(6, Math.round(sqft / 600) + random.int(-1, 1)));
  const baths = Math.max(1, Math.round((beds * 0.75 + random.int(-1, 1) * 0.5) * 2) / 2);
  const pool = random.chance(place.state === 'CA' || place.state === 'FL' || place.state === 'AZ' ? 0.25 : 0.08);
  const stories = sqft > 2400 ? 2 : random.int(1, 2);
  const valueMean = Math.round((place.typicalValue * (sqft / TYPICAL_SQFT) ** 0.7 * Math.exp(random.float(-0.3, 0.3, 4))) / 1000) * 1000;
  const rentMean = Math.round((valueMean * random.float(0.0042, 0.0072, 5)) / 5) * 5;
  const growth = zipGrowth(place.zip);
  const apn = `${random.int(1000, 9999)}-${String(random.int(1, 999)).padStart(3, '0')}-${String(random.int(1, 99)).padStart(3, '0')}`;
  const valueFsd = random.float(0.04, 0.2, 4);
  const rentFsd = random.float(0.05, 0.2, 4);
  const landMean = Math.round((valueMean * random.float(0.2, 0.6, 3)) / 1000) * 1000;
  const landFsd = random.float(0.08, 0.3, 4);
  const siteAreaAcres = round(random.float(0.05, 0.6, 3) * (place.typicalValue < 400_000 ? 2 : 1), 3);

  // The year built and the home's features come from streams of their own (so that adding them
  // left the value and rent as they were), and only the results that show them need them: drawn
  // on first use, which most value lookups never make.
  let details: Pick<PropertyFacts, 'yearBuilt' | 'blockCode' | 'fields'> | undefined;
  const detailsOf = () => {
    if (details) return details;
    const yearBuilt = randomFor('year-built', place.key).int(1905, 2021);
    const features = homeFeatures(place, beds);
    details = {
      yearBuilt,
      blockCode: features.blockCode,
      fields: {
        apn,
        fips: place.countyFips,
        city: place.city,
        state: place.state,
        zipcode: place.zip,
        building_area_sq_ft: sqft,
        number_of_bedrooms: beds,
        number_of_bathrooms: baths,
        total_bath_count: baths,
        full_bath_count: Math.floor(baths),
        partial_bath_count: (baths - Math.floor(baths)) * 2,
        pool,
        has_pool: pool,
        year_built: yearBuilt,
        site_area_acres: siteAreaAcres,
        no_of_stories: stories,
        stories_count: stories,
        ...features.fields,
      },
    };
    return details;
  };
  return {
    valueMean,
    valueFsd,
    rentMean,
    rentFsd,
    landMean,
    landFsd,
    sqft,
    get yearBuilt() {
      return detailsOf().yearBuilt;
    },
    get blockCode() {
      return detailsOf().blockCode;
    },
    beds,
    baths,
    pool,
    valueGrowth: growth.value,
    rentGrowth: growth.rent,
    get fields() {
      return detailsOf().fields;
    },
  };
}

/** Block results have no per-property facts; they share the county and the area's price level. */
export function blockFields(block: BlockPlace): Readonly<Record<string, unknown>> {
  return { fips: block.countyFips, state: block.state };
}

/**
 * The property's value at an earlier date: today's value deflated by the ZIP's drift, at least 2%
 * a year over the long run, so that a house is never worth more before than now.
 */
export function valueAt(facts: PropertyFacts, date: Date): number {
  const yearsAgo = (DATA_DATE.getTime() - date.getTime()) / (365.25 * 86_400_000);
  return facts.valueMean / (1 + Math.max(facts.valueGrowth, 0.02)) ** Math.max(0, yearsAgo);
}
