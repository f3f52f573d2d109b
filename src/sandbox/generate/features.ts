import type { Place } from './place.js';
import { randomFor } from './random.js';
import { pickWeighted } from './weighted.js';

/**
 * What kind of home a property is and what it has, drawn once from its key: details, both records
 * of details_enhanced and the within-block answers read these, so that a basement in one is a
 * basement in the other, a garage for two cars holds two cars and a multi-family home has units
 * (and the zoning) of one.
 */

const SINGLE_FAMILY_ZONES = ['R1', 'RS-7', 'SFR', 'R-10'];
const MULTI_FAMILY_ZONES = ['R2', 'RM-1', 'R3'];

/** Homes by kind and how common each is, the code the block statistics use for the kind, whether it holds several homes, its zoning. */
const KINDS = [
  { type: 'Single Family Residential', blockCode: 'SFD', weight: 75, multiUnit: false, zoning: SINGLE_FAMILY_ZONES },
  { type: 'Condominium', blockCode: 'CND', weight: 10, multiUnit: false, zoning: MULTI_FAMILY_ZONES },
  { type: 'Townhouse', blockCode: 'TH', weight: 8, multiUnit: false, zoning: MULTI_FAMILY_ZONES },
  { type: 'Multi-Family', blockCode: 'INC', weight: 4, multiUnit: true, zoning: MULTI_FAMILY_ZONES },
  { type: 'Manufactured/Mobile Home', blockCode: 'MFH', weight: 3, multiUnit: false, zoning: SINGLE_FAMILY_ZONES },
] as const;

const BASEMENTS = [
  { basement: 'No Basement', weight: 55 },
  { basement: 'Full Basement', weight: 15 },
  { basement: 'Partial Basement', weight: 10 },
  { basement: 'Unfinished Basement', weight: 8 },
  { basement: 'Improved Basement (Finished)', weight: 7 },
  { basement: 'Daylight, Full', weight: 2 },
  { basement: 'Daylight, Partial', weight: 2 },
  { basement: 'Basement (not specified)', weight: 1 },
];

/** Parking, and whether cars park inside it (a garage) or not (a carport, an open space). */
const PARKING = [
  { parking: 'Attached Garage', garage: true, weight: 40 },
  { parking: 'Detached Garage', garage: true, weight: 15 },
  { parking: 'Garage', garage: true, weight: 10 },
  { parking: 'Built-in', garage: true, weight: 5 },
  { parking: 'Carport', garage: false, weight: 8 },
  { parking: 'Open', garage: false, weight: 5 },
  { parking: 'None', garage: false, weight: 12 },
];

/** Mobile homes stand where land is cheap. */
const MOBILE_HOMES_BELOW = 500_000;

/** Only a house stands on its own ground: a flat or a mobile home has no basement of its own. */
const WITHOUT_BASEMENT = new Set(['Condominium', 'Manufactured/Mobile Home']);

export function homeFeatures(place: Place, beds: number) {
  const random = randomFor('features', place.key);
  const kind = pickWeighted(random, place.typicalValue < MOBILE_HOMES_BELOW ? KINDS : KINDS.filter(({ blockCode }) => blockCode !== 'MFH'));
  const { basement } = WITHOUT_BASEMENT.has(kind.type) ? BASEMENTS[0]! : pickWeighted(random, BASEMENTS);
  const { parking, garage } = pickWeighted(random, PARKING);
  const cars = garage ? random.int(1, 3) : 0;
  // Two to four homes, with no more of them than bedrooms beyond a pair of studios.
  const units = kind.multiUnit ? random.int(2, Math.max(2, Math.min(4, beds))) : 1;
  return {
    blockCode: kind.blockCode,
    /** Values for the schema fields of these names. */
    fields: {
      property_type: kind.type,
      number_of_units: units,
      zoning: random.pick(kind.zoning),
      basement,
      has_basement: basement !== 'No Basement',
      garage_type_parking: parking,
      garage_parking_of_cars: cars,
      parking_garage_count: cars,
      parking_carport_count: parking === 'Carport' ? 1 : 0,
      // Bedrooms, and in each home a kitchen and a living room; perhaps a dining or a family room. Bathrooms not counted.
      total_number_of_rooms: beds + 2 * units + random.int(0, 2),
    },
  };
}
