import { countyName, msaName } from '../area-names.js';
import { DATA_DATE, addDays, dayInPast, isoDay } from '../dates.js';
import { openDisasters } from '../disasters.js';
import { propertyOf, type Generated, type Rule } from './rule.js';

const FLOOD_ZONES: ReadonlyArray<readonly [string, string]> = [
  ['X', 'Low'], ['X', 'Low'], ['X', 'Low'], ['X', 'Low'], ['X500', 'Moderate'], ['AE', 'High'], ['A', 'High'], ['VE', 'High'],
];

function sale(record: Generated, valueMean: number, context: Parameters<Rule>[1]) {
  const sold = dayInPast(context.random, 15, 0.3);
  const salePrice = Math.round((valueMean * context.random.float(0.55, 1.0, 3)) / 1000) * 1000;
  return {
    ...record.sale,
    list_date: isoDay(addDays(sold, -context.random.int(20, 120))),
    sale_date: isoDay(sold),
    list_price: Math.round((salePrice * context.random.float(0.97, 1.08, 3)) / 1000) * 1000,
    sale_price: salePrice,
  };
}

const MAIN_PROPERTY_TYPE = 'Single Family Residential';

export const RECORD_RULES: Readonly<Record<string, Rule>> = {
  'property/geocode': () => true,
  'property/census': (result, context) => {
    const { place } = propertyOf(context);
    return {
      ...result,
      block_group: place.blockId.slice(0, 12),
      block: place.blockId,
      fips: place.countyFips,
      county_name: countyName(place.countyFips),
      msa_name: place.msa ? msaName(place.msa, place.state) : null,
      msa: place.msa,
      tract: place.blockId.slice(0, 11),
      tribal_land: context.random.chance(0.01),
    };
  },
  'property/details': (result, context) => {
    const property = { ...result.property };
    if (context.random.chance(0.75)) property.property_type = MAIN_PROPERTY_TYPE;
    if (property.garage_type_parking === 'None') property.garage_parking_of_cars = 0;
    return { property, assessment: result.assessment };
  },
  'property/details_enhanced': (result, context) => {
    const { facts } = propertyOf(context);
    const propertyType = context.random.chance(0.75) ? MAIN_PROPERTY_TYPE : result.public_record.property_type;
    return {
      listing_record: { ...result.listing_record, property_type: propertyType, assessment: null, sale: sale(result.listing_record, facts.valueMean, context) },
      public_record: { ...result.public_record, property_type: propertyType, room_types: null, sale: sale(result.public_record, facts.valueMean, context) },
    };
  },
  'property/fema_disaster_area': (_result, context) => {
    const { place } = propertyOf(context);
    const details = openDisasters(place.countyFips, place.state);
    return { data_current_to: isoDay(addDays(DATA_DATE, -3)), in_disaster_area: details.length > 0, details };
  },
  'property/flood': (result, context) => {
    const [zone, risk] = context.random.pick(FLOOD_ZONES);
    return { ...result, zone, flood_risk: risk };
  },
  'property/school': (result) => ({
    school: Object.fromEntries(
      Object.entries(result.school as Record<string, Generated[]>).map(([stage, schools]) => [
        stage,
        schools
          .map((school) => ({ ...school, name: school.name.replace(/\b(Elementary|Middle|High|Academy)\b/, stage[0]!.toUpperCase() + stage.slice(1)), education_level: [stage] }))
          .sort((a, b) => a.distance_miles - b.distance_miles),
      ]),
    ),
  }),
};

