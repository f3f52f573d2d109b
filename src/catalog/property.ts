import {
  ARM_INDEXES,
  BLOCK_PROPERTY_TYPES,
  DETAILS,
  LEASE_PAYMENT_FREQUENCIES,
  LENDER_TYPES,
  LIEN_TYPES,
  LTV_SOURCES,
  PROPERTY_TYPES,
  RENTAL_LISTING_STATUSES,
  SALE_LISTING_STATUSES,
} from './enums.js';
import {
  bool,
  digits,
  dollars,
  float,
  int,
  isoDate,
  list,
  nullable,
  obj,
  oneOf,
  optional,
  str,
  trueOrNull,
  type Schema,
} from './schema.js';
import { deedRecord, forecastPoint, lienRecord, percentileRange, valuation } from './shapes.js';
import type { Endpoint, NoContentCause, Param } from './types.js';

interface PropertyEndpoint {
  description: string;
  result?: Schema;
  price: number;
  params?: Param[];
  requireOneOf?: string[];
  noContent?: NoContentCause;
  mget?: boolean;
}

const property = <Target extends string>(target: Target, spec: PropertyEndpoint): Endpoint<`property/${Target}`> => ({
  name: `property/${target}` as const,
  version: 'v2',
  level: 'property',
  target,
  params: [],
  ...spec,
});

const clientValueParams: Param[] = [
  { name: 'client_value', type: 'number', min: 0, description: "caller's value (USD) to position within the block distribution" },
  { name: 'client_value_sqft', type: 'number', min: 0, description: "caller's value per sq ft (USD) to position" },
];

const withinBlock = obj({
  property_type: oneOf(BLOCK_PROPERTY_TYPES),
  service_value_percentile_range: percentileRange,
  service_value_sqft_percentile_range: percentileRange,
  client_value_percentile_range: nullable(percentileRange),
  client_value_sqft_percentile_range: nullable(percentileRange),
});

const forecast = (months: number[]) => obj(Object.fromEntries(months.map((m) => [`month_${String(m).padStart(2, '0')}`, forecastPoint])));

const listingBase = {
  listing_date: isoDate(),
  listing_price: dollars(int({ min: 0 })),
  has_price_considerations: trueOrNull(),
};

// listing_record and public_record share one shape; room_types is null for public_record and
// assessment is null for listing_record.
const detailsEnhancedRecord = obj({
  building_area_sq_ft: int({ min: 0 }),
  has_basement: nullable(bool()),
  has_pool: nullable(bool()),
  number_of_bathrooms: float({ min: 0 }),
  number_of_bedrooms: int({ min: 0 }),
  parking_carport_count: nullable(int({ min: 0 })),
  parking_driveway_count: nullable(int({ min: 0 })),
  parking_garage_count: nullable(int({ min: 0 })),
  property_type: oneOf(PROPERTY_TYPES),
  room_types: nullable(list(str())),
  site_area_acres: float({ min: 0 }),
  stories_count: int({ min: 0 }),
  year_built: int(),
  assessment: nullable(
    obj({
      apn: str(),
      assessment_year: int(),
      owner_name: str(),
      tax_amount: dollars(int({ min: 0 })),
      tax_year: int(),
      total_assessed_value: dollars(int({ min: 0 })),
    }),
  ),
  sale: obj({
    list_date: isoDate(),
    sale_date: isoDate(),
    list_price: dollars(int({ min: 0 })),
    sale_price: dollars(int({ min: 0 })),
    is_reo: bool(),
    is_distressed: bool(),
  }),
});

const hpiAdjustment = obj({
  from_value: dollars(int({ min: 0 })),
  from_date: isoDate(),
  to_date: isoDate(),
  adjusted_by: obj({ block: int(), blockgroup: int(), zip: int(), msa: int(), state: int() }),
});

const currentLien = obj({
  arm_change_date: nullable(isoDate()),
  arm_index: nullable(oneOf(ARM_INDEXES)),
  due_date: isoDate(),
  grantee_1: nullable(str()),
  grantee_1_forenames: nullable(str()),
  grantee_2: nullable(str()),
  grantee_2_forenames: nullable(str()),
  grantor_1: nullable(str()),
  grantor_2: nullable(str()),
  heloc: bool(),
  interest_rate: float(),
  is_arm: bool(),
  lender_type: oneOf(LENDER_TYPES),
  lien_amount: dollars(int({ min: 0 })),
  lien_length_months: int({ min: 0 }),
  lien_months_completed_as_of_date: int({ min: 0 }),
  lien_type: oneOf(LIEN_TYPES),
  monthly_payment: dollars(int({ min: 0 })),
  notice_ids: list(int()),
  outstanding_principal: dollars(int({ min: 0 })),
  principal_paid_as_of_date: dollars(int({ min: 0 })),
  record_date: isoDate(),
  stand_alone_refi: bool(),
});

/** The 28 property targets of the spec, plus component_mget. */
export const PROPERTY_ENDPOINTS = [
  property('geocode', {
    description: 'Resolve an address: address_info with resolution status',
    // The spec's geocode example carries `result: true`; the data is address_info.
    result: bool(),
    price: 0.01,
  }),
  property('census', {
    description: 'Census geography: block, block group, tract, county, MSA',
    price: 0.02,
    result: obj({
      block_group: digits(12),
      block: digits(15),
      county_name: str(),
      fips: digits(5),
      msa_name: nullable(str()),
      msa: nullable(digits(5)),
      tract: digits(11),
      tribal_land: bool(),
    }),
  }),
  property('details', {
    description: 'Assessor public-record attributes and the latest assessment',
    price: 0.1,
    result: obj({
      property: obj({
        air_conditioning: oneOf(['yes', 'no']),
        attic: bool(),
        basement: oneOf(DETAILS.basement),
        building_area_sq_ft: int({ min: 0 }),
        building_condition_score: int({ min: 1, max: 5 }),
        building_quality_score: int({ min: 1, max: 5 }),
        construction_type: oneOf(DETAILS.construction_type),
        exterior_walls: oneOf(DETAILS.exterior_walls),
        fireplace: bool(),
        full_bath_count: int({ min: 0 }),
        garage_parking_of_cars: int({ min: 0 }),
        garage_type_parking: oneOf(DETAILS.garage_type_parking),
        heating: oneOf(DETAILS.heating),
        heating_fuel_type: nullable(str()),
        no_of_buildings: int({ min: 0 }),
        no_of_stories: int({ min: 0 }),
        number_of_bedrooms: int({ min: 0 }),
        number_of_units: int({ min: 0 }),
        partial_bath_count: float({ min: 0 }),
        pool: bool(),
        property_type: oneOf(PROPERTY_TYPES),
        roof_cover: oneOf(DETAILS.roof_cover),
        roof_type: oneOf(DETAILS.roof_type),
        sewer: oneOf(DETAILS.sewer),
        site_area_acres: float({ min: 0 }),
        style: oneOf(DETAILS.style),
        subdivision: str(),
        total_bath_count: float({ min: 0 }),
        total_number_of_rooms: int({ min: 0 }),
        water: oneOf(DETAILS.water),
        year_built: int(),
        zoning: str(),
      }),
      assessment: obj({
        apn: str(),
        assessment_year: int(),
        tax_year: int(),
        tax_amount: dollars(float({ min: 0 })),
        total_assessed_value: dollars(int({ min: 0 })),
      }),
    }),
  }),
  property('details_enhanced', {
    description: 'Attributes from listing data and from public records, side by side',
    price: 0.15,
    result: obj({ listing_record: detailsEnhancedRecord, public_record: detailsEnhancedRecord }),
  }),
  property('fema_disaster_area', {
    description: 'Open federal disaster declarations for the county',
    price: 0.05,
    result: obj({
      data_current_to: isoDate(),
      in_disaster_area: bool(),
      details: list(
        obj({
          declared_date: isoDate(),
          start_date: isoDate(),
          end_date: nullable(isoDate()),
          fema_disaster_num: int({ min: 1 }),
          fips: digits(5),
          title: str(),
          type: str(),
        }),
      ),
    }),
  }),
  property('flood', {
    description: 'Flood zone, risk level and map panel',
    price: 0.05,
    result: obj({ effective_date: isoDate(), flood_risk: str(), zone: str(), panel_number: str() }),
  }),
  property('land_value', {
    description: 'Automated land value with its confidence band',
    price: 0.1,
    result: obj({
      land_value: obj({
        value_mean: dollars(int({ min: 0 })),
        value_upr: dollars(int({ min: 0 })),
        value_lwr: dollars(int({ min: 0 })),
        fsd: float({ min: 0, max: 1 }),
      }),
    }),
  }),
  property('listing_status', {
    description: 'Latest sale listing status',
    price: 0.05,
    noContent: 'limited-coverage',
    result: obj({ ...listingBase, listing_status_date: isoDate(), listing_status: oneOf(SALE_LISTING_STATUSES) }),
  }),
  property('ltv_details', {
    description: 'Active liens itemized, with estimated loan-to-value and equity',
    price: 0.3,
    result: obj({
      as_of_month: str({ format: 'month' }),
      fsd: float({ min: 0, max: 1 }),
      in_default: bool(),
      last_default_date: nullable(isoDate()),
      ltv_lwr: float({ min: 0 }),
      ltv_mean: float({ min: 0 }),
      ltv_upr: float({ min: 0 }),
      property_value_lwr: dollars(int({ min: 0 })),
      property_value_mean: dollars(int({ min: 0 })),
      property_value_upr: dollars(int({ min: 0 })),
      total_equity_lwr: dollars(int()),
      total_equity_mean: dollars(int()),
      total_equity_upr: dollars(int()),
      total_lien: dollars(int({ min: 0 })),
      total_monthly_payments: dollars(int({ min: 0 })),
      total_notice_ids: list(int()),
      current_liens: list(currentLien),
    }),
  }),
  property('ltv_origination', {
    description: 'Loan-to-value at origination of the primary loans',
    price: 0.15,
    result: obj({
      ltv: float({ min: 0 }),
      lien: dollars(int({ min: 0 })),
      value: nullable(dollars(int({ min: 0 }))),
      source: oneOf(LTV_SOURCES),
    }),
  }),
  property('mortgage_lien', {
    description: "Liens since the last arm's-length transaction (current owner)",
    price: 0.2,
    result: list(lienRecord),
  }),
  property('mortgage_lien_all', {
    description: 'All available liens, including prior owners',
    price: 0.25,
    result: list(lienRecord),
  }),
  property('nod', {
    description: 'Notices of default since the last sale, not rescinded',
    price: 0.1,
    result: obj({
      last_default_date: nullable(isoDate()),
      default_history: list(
        obj({
          apn: str(),
          event_type: str(),
          fips: digits(5),
          record_book: str(),
          record_date: isoDate(),
          record_doc: str(),
          record_page: str(),
        }),
      ),
    }),
  }),
  property('on_market', {
    description: 'Whether an active sale listing exists',
    price: 0.05,
    noContent: 'no-listing',
    result: obj({ currently_listed: bool(), ...listingBase }),
  }),
  property('owner_occupied', {
    description: 'Whether the tax mailing address is the property itself',
    price: 0.05,
    result: obj({ owner_occupied: bool() }),
  }),
  property('rental_listing_status', {
    description: 'Latest rental listing status',
    price: 0.05,
    noContent: 'no-listing',
    result: obj({
      listing_status: oneOf(RENTAL_LISTING_STATUSES),
      ...listingBase,
      lease_payment_frequency: oneOf(LEASE_PAYMENT_FREQUENCIES),
    }),
  }),
  property('rental_on_market', {
    description: 'Whether an active rental listing exists',
    price: 0.05,
    noContent: 'no-listing',
    result: obj({
      currently_listed: bool(),
      ...listingBase,
      lease_payment_frequency: oneOf(LEASE_PAYMENT_FREQUENCIES),
    }),
  }),
  property('rental_value', {
    description: 'Monthly rental valuation with its confidence band',
    price: 0.2,
    result: valuation,
  }),
  property('rental_value_forecast', {
    description: 'ZIP-level rent forecast at 3, 6 and 12 months',
    price: 0.1,
    result: forecast([3, 6, 12]),
  }),
  property('rental_value_within_block', {
    description: "Rental value's position within the block's distribution",
    price: 0.1,
    params: clientValueParams,
    result: withinBlock,
  }),
  property('rental_yield', {
    description: 'Gross rental yield: monthly rent x 12 / value',
    price: 0.15,
    result: obj({ gross_yield: float({ min: 0 }), value: dollars(int({ min: 0 })), monthly_rent: dollars(int({ min: 0 })) }),
  }),
  property('sales_history', {
    description: 'Sales and transfers over the past 25 years',
    price: 0.1,
    result: list(deedRecord),
  }),
  property('school', {
    description: 'Nearby elementary, middle and high schools with scores',
    price: 0.1,
    result: obj({
      school: obj(
        Object.fromEntries(
          ['elementary', 'middle', 'high'].map((stage) => [
            stage,
            list(
              obj({
                city: str(),
                state: str({ length: 2 }),
                name: str(),
                zipcode: digits(5),
                phone: str(),
                address: str(),
                verified_school_boundaries: nullable(bool()),
                distance_miles: float({ min: 0 }),
                score: float({ min: 0, max: 100 }),
                education_level: list(oneOf(['elementary', 'middle', 'high'])),
                assessment_year: int(),
              }),
            ),
          ]),
        ),
      ),
    }),
  }),
  property('value', {
    description: 'Automated sale value with its confidence band',
    price: 0.25,
    result: obj({ value: valuation }),
  }),
  property('value_details_adjusted', {
    description: 'Value after adding beds, baths, square feet or a pool',
    price: 0.3,
    noContent: 'adjustment-impossible',
    params: [
      { name: 'add_beds', type: 'int', min: 1, description: 'bedrooms to add' },
      { name: 'add_baths', type: 'number', step: 0.5, min: 0.5, description: 'bathrooms to add, whole or half numbers' },
      { name: 'add_sqft', type: 'int', min: 1, description: 'square feet to add' },
      { name: 'add_pools', type: 'int', allowed: [1], description: 'pools to add; only 1 is accepted' },
    ],
    requireOneOf: ['add_beds', 'add_baths', 'add_sqft', 'add_pools'],
    // adjusted_*_to: only for the additions sent (spec).
    result: obj({
      adjusted_value_to: dollars(int({ min: 0 })),
      adjusted_beds_to: optional(int({ min: 0 })),
      adjusted_baths_to: optional(float({ min: 0 })),
      adjusted_sqft_to: optional(int({ min: 0 })),
      adjusted_pools_to: optional(int({ min: 0 })),
    }),
  }),
  property('value_forecast', {
    description: 'ZIP-level value forecast over 3 years',
    price: 0.1,
    result: forecast([3, 6, 12, 18, 24, 30, 36]),
  }),
  property('value_hpi_adjusted', {
    description: 'A value moved to another month with price indexes',
    price: 0.15,
    params: [
      { name: 'adjust_to_date', type: 'date', firstOfMonth: true, description: 'target month (yyyy-mm-01); default this month' },
      { name: 'client_value', type: 'number', min: 0, description: "caller's value (USD) to adjust" },
      { name: 'client_date', type: 'date', firstOfMonth: true, description: 'month of client_value (yyyy-mm-01)' },
    ],
    result: obj({ client_value_adjusted: nullable(hpiAdjustment), service_value_adjusted: hpiAdjustment }),
  }),
  property('value_within_block', {
    description: "Sale value's position within the block's distribution",
    price: 0.1,
    params: clientValueParams,
    result: withinBlock,
  }),
  property('component_mget', {
    description: 'Several endpoints for the same items in one call',
    price: 0,
    mget: true,
    params: [
      {
        name: 'components',
        type: 'string',
        required: true,
        description: 'comma-separated endpoint names, no spaces (property/value,property/school)',
      },
    ],
  }),
] as const;
