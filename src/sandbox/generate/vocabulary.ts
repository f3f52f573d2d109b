import type { Random } from './random.js';

/**
 * Plausible values for schema fields the catalog types only as "string" or "number", by field name.
 * The schema walker consults these tables; anything not listed falls back to a generic value of the
 * right type.
 */

const PLACE_WORDS = ['Oak', 'Maple', 'Cedar', 'Willow', 'Highland', 'Lake', 'Sunset', 'Park', 'Ridge', 'Meadow'];

const digitsOf = (random: Random, length: number) => String(random.int(10 ** (length - 1), 10 ** length - 1));

type StringMaker = readonly string[] | ((random: Random) => string);

const STRINGS: Readonly<Record<string, StringMaker>> = {
  apn: (random) => `${random.int(1000, 9999)}-${random.int(100, 999)}-${random.int(10, 99)}`,
  site_name: (random) =>
    `${random.pick(PLACE_WORDS)} ${random.pick(['Chemical Co.', 'Landfill', 'Plating Works', 'Refinery', 'Disposal Site'])}`,
  npl_status: ['Currently on the Final NPL', 'Deleted from the Final NPL', 'Proposed for NPL'],
  heating_fuel_type: ['Gas', 'Electric', 'Oil', 'Propane'],
  subdivision: (random) => `${random.pick(PLACE_WORDS)} ${random.pick(['Estates', 'Heights', 'Terrace', 'Gardens', 'Tract'])}`,
  room_types: ['bedroom', 'bathroom', 'kitchen', 'living_room', 'dining_room', 'family_room', 'laundry', 'office'],
  name: (random) => `${random.pick(PLACE_WORDS)} ${random.pick(['Elementary', 'Middle', 'High', 'Academy'])} School`,
  phone: (random) => `(${digitsOf(random, 3)}) ${digitsOf(random, 3)}-${digitsOf(random, 4)}`,
  address: (random) => `${random.int(10, 9999)} ${random.pick(PLACE_WORDS)} ${random.pick(['St', 'Ave', 'Blvd', 'Rd'])}`,
};

export function stringFor(field: string, random: Random): string | undefined {
  const maker = STRINGS[field];
  if (maker === undefined) return undefined;
  return typeof maker === 'function' ? maker(random) : random.pick(maker);
}

/**
 * Ranges for numeric fields without their own rule. `ofValue`: a fraction of the property's value
 * (or the area's typical value at block level), for money amounts.
 */
export interface NumberRange {
  range: readonly [number, number];
  decimals?: number;
  ofValue?: boolean;
}

export const NUMBERS: Readonly<Record<string, NumberRange>> = {
  no_of_buildings: { range: [1, 1] },
  assessment_year: { range: [2023, 2024] },
  parking_driveway_count: { range: [0, 3] },
  incidents: { range: [0, 240] },
  gross_yield_count: { range: [1, 60] },
  gross_yield_average: { range: [0.03, 0.1], decimals: 4 },
  gross_yield_median: { range: [0.03, 0.1], decimals: 4 },
  distance_miles: { range: [0.1, 6], decimals: 2 },
  max_percent_g: { range: [2, 80], decimals: 2 },
  accumulated_energy: { range: [0, 5000], decimals: 2 },
};

/** Realistic list lengths, by the list's field name (the endpoint target for top-level lists). */
export const LIST_LENGTHS: Readonly<Record<string, readonly [number, number]>> = {
  elementary: [1, 3],
  middle: [1, 3],
  high: [1, 3],
  detail: [0, 3],
  room_types: [3, 6],
  education_level: [1, 1],
};
