import type { BlockPlace, Place } from './place.js';
import { randomFor, round } from './random.js';

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
  const valueMean = Math.round((place.typicalValue * (sqft / 1800) ** 0.7 * Math.exp(random.float(-0.3, 0.3, 4))) / 1000) * 1000;
  const rentMean = Math.round((valueMean * random.float(0.0042, 0.0072, 5)) / 5) * 5;
  const zip = randomFor('zip-index', place.zip);
  const apn = `${random.int(1000, 9999)}-${String(random.int(1, 999)).padStart(3, '0')}-${String(random.int(1, 99)).padStart(3, '0')}`;
  return {
    valueMean,
    valueFsd: random.float(0.04, 0.2, 4),
    rentMean,
    rentFsd: random.float(0.05, 0.2, 4),
    landMean: Math.round((valueMean * random.float(0.2, 0.6, 3)) / 1000) * 1000,
    landFsd: random.float(0.08, 0.3, 4),
    sqft,
    beds,
    baths,
    pool,
    valueGrowth: zip.float(-0.02, 0.07, 4),
    rentGrowth: zip.float(-0.01, 0.05, 4),
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
      year_built: random.int(1905, 2021),
      site_area_acres: round(random.float(0.05, 0.6, 3) * (place.typicalValue < 400_000 ? 2 : 1), 3),
      no_of_stories: stories,
      stories_count: stories,
    },
  };
}

/** Block results have no per-property facts; they share the county and the area's price level. */
export function blockFields(block: BlockPlace): Readonly<Record<string, unknown>> {
  return { fips: block.countyFips, state: block.state };
}
