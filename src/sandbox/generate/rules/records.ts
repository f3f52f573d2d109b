import { countyName, msaName } from '../area-names.js';
import { latestAssessment } from '../assessment.js';
import { DATA_DATE, addDays, isoDay } from '../dates.js';
import { openDisasters } from '../disasters.js';
import { zipRecord } from '../geography.js';
import { floodPanel } from '../flood-map.js';
import { LIVE_STATUSES, latestListing } from '../listing.js';
import { TYPICAL_SQFT, type PropertyFacts } from '../facts.js';
import { fractionOf } from '../random.js';
import { historyOf } from './history.js';
import { propertyOf, type Generated, type Rule, type RuleTable } from './rule.js';

const FLOOD_ZONES: ReadonlyArray<readonly [string, string]> = [
  ['X', 'Low'],
  ['X', 'Low'],
  ['X', 'Low'],
  ['X', 'Low'],
  ['X500', 'Moderate'],
  ['AE', 'High'],
  ['A', 'High'],
  ['VE', 'High'],
];

/** The latest sale as details_enhanced reports it: the current owner's purchase, in both records. */
function lastSale(context: Parameters<Rule>[1]) {
  const sale = historyOf(context).history.lastSale;
  return {
    list_date: isoDay(sale.listedOn),
    sale_date: isoDay(sale.date),
    list_price: sale.listPrice,
    sale_price: sale.price,
    is_reo: sale.reo,
    is_distressed: sale.distressed,
  };
}

/** A rental listing that is live or leased has a tenant moving in or living there, not the owner. */
const TENANTED = new Set([...LIVE_STATUSES, 'Leased']);

/** room_types names each kind of room the listing mentions once. */
const distinct = (roomTypes: string[] | null) => (roomTypes === null ? null : [...new Set(roomTypes)]);

const score = (value: number) => Math.max(1, Math.min(5, Math.round(value)));

/**
 * The assessor's scores follow the home: condition falls with age (a new home 5, a century-old one
 * 1 or 2), quality rises with its price per square foot against the area's typical home.
 */
function assessorScores(facts: PropertyFacts, typicalValue: number) {
  const age = DATA_DATE.getUTCFullYear() - facts.yearBuilt;
  const pricePerSqftRatio = facts.valueMean / facts.sqft / (typicalValue / TYPICAL_SQFT);
  return { building_condition_score: score(5 - age / 30), building_quality_score: score(3 + 2 * Math.log2(pricePerSqftRatio)) };
}

export const RECORD_RULES: RuleTable = {
  'property/geocode': () => true,
  'property/census': (generated, context) => {
    const result = generated();
    const { place } = propertyOf(context);
    const zip = zipRecord(place.zip);
    return {
      ...result,
      block_group: place.blockId.slice(0, 12),
      block: place.blockId,
      fips: place.countyFips,
      county_name: countyName(place.countyFips, zip?.countyFips === place.countyFips ? zip.countyName : undefined),
      msa_name: place.msa ? msaName(place.msa, place.state) : null,
      msa: place.msa,
      tract: place.blockId.slice(0, 11),
      // Tribal land is a property of the census block: every house in a block shares the answer.
      tribal_land: fractionOf('tribal-land', place.blockId) < 0.01,
    };
  },
  'property/details': (generated, context) => {
    const result = generated();
    const { place, facts } = propertyOf(context);
    const { apn, year, assessedValue, taxAmount } = latestAssessment(place.key, facts);
    return {
      property: { ...result.property, ...assessorScores(facts, place.typicalValue) },
      assessment: { apn, assessment_year: year, tax_year: year, tax_amount: taxAmount, total_assessed_value: assessedValue },
    };
  },
  'property/details_enhanced': (generated, context) => {
    const result = generated();
    const { place, facts } = propertyOf(context);
    const { apn, year, assessedValue, taxAmount } = latestAssessment(place.key, facts);
    const [owner] = historyOf(context).history.owners;
    const assessment = {
      apn,
      assessment_year: year,
      owner_name: `${owner.name} ${owner.forenames}`,
      tax_amount: Math.round(taxAmount),
      tax_year: year,
      total_assessed_value: assessedValue,
    };
    const sale = lastSale(context);
    return {
      listing_record: { ...result.listing_record, room_types: distinct(result.listing_record.room_types), assessment: null, sale },
      public_record: { ...result.public_record, room_types: null, assessment, sale },
    };
  },
  'property/fema_disaster_area': (_generated, context) => {
    const { place } = propertyOf(context);
    const details = openDisasters(place.countyFips, place.state);
    return { data_current_to: isoDay(addDays(DATA_DATE, -3)), in_disaster_area: details.length > 0, details };
  },
  'property/flood': (generated, context) => {
    const result = generated();
    const { place } = propertyOf(context);
    const [zone, risk] = context.random.pick(FLOOD_ZONES);
    return { ...result, ...floodPanel(place.blockId), zone, flood_risk: risk };
  },
  'property/owner_occupied': (_generated, context) => {
    const { place, facts } = propertyOf(context);
    const rental = latestListing('rental', place, facts);
    return { owner_occupied: !(rental && TENANTED.has(rental.status)) && context.random.chance(0.85) };
  },
  'property/school': (generated) => ({
    school: Object.fromEntries(
      Object.entries(generated().school as Record<string, Generated[]>).map(([stage, schools]) => [
        stage,
        schools
          .map((school) => ({
            ...school,
            name: school.name.replace(/\b(Elementary|Middle|High|Academy)\b/, stage[0]!.toUpperCase() + stage.slice(1)),
            education_level: [stage],
          }))
          .filter((school, index, all) => all.findIndex((other) => other.name === school.name) === index)
          .sort((a, b) => a.distance_miles - b.distance_miles),
      ]),
    ),
  }),
};
