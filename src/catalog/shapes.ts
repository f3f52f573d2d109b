import { ARM_INDEXES, GEO_PRECISIONS, LENDER_TYPES, LIEN_TYPES, LIEN_EVENT_TYPES } from './enums.js';
import { bool, digits, dollars, float, int, isoDate, list, nullable, obj, oneOf, str } from './schema.js';

/** The spec's shared record shapes and the chunk's info members. */

export const addressInfo = obj({
  address_full: str(),
  slug: str(),
  address: str(),
  unit: nullable(str()),
  zipcode: digits(5),
  zipcode_plus4: digits(4),
  block_id: digits(15),
  blockgroup_id: digits(12),
  county_fips: digits(5),
  metrodiv: nullable(digits(5)),
  msa: nullable(digits(5)),
  city: str(),
  state: str({ length: 2 }),
  geo_precision: oneOf(GEO_PRECISIONS),
  lat: float({ min: -90, max: 90 }),
  // The field table says lon, the example payload lng; the service's payloads are what clients read.
  lng: float({ min: -180, max: 180 }),
  status: obj({
    match: bool(),
    requested_item: obj({}),
    details: list(str()),
    changes: list(str()),
    errors: list(str()),
  }),
});

export const blockInfo = obj({ block_id: digits(15) });

/** Beyond the spec: the zip and msa levels' chunks are assumed to describe their item as block_info does. */
export const zipcodeInfo = obj({ zipcode: digits(5) });
export const msaInfo = obj({ msa: digits(5) });

const name = () => nullable(str());

export const lienRecord = obj({
  amount: dollars(int({ min: 0 })),
  apn: str(),
  arm_index: nullable(oneOf(ARM_INDEXES)),
  due_date: isoDate(),
  event_type: oneOf(LIEN_EVENT_TYPES),
  fifteen_yr: float(),
  thirty_yr: float(),
  fips: digits(5),
  grantee_1: name(),
  grantee_1_forenames: name(),
  grantee_2: name(),
  grantee_2_forenames: name(),
  grantor_1: name(),
  grantor_2: name(),
  hc_interest_rate: float(),
  interest_rate: float(),
  heloc: bool(),
  lender_type: oneOf(LENDER_TYPES),
  lien_type: oneOf(LIEN_TYPES),
  mortgage_years: int({ min: 0 }),
  record_book: str(),
  record_page: str(),
  record_doc: str(),
  record_date: isoDate(),
  stand_alone_refi: bool(),
});

export const deedRecord = obj({
  amount: dollars(float({ min: 0 })),
  apn: str(),
  event_type: str(),
  fips: digits(5),
  grantee_1: name(),
  grantee_1_forenames: name(),
  grantee_2: name(),
  grantee_2_forenames: name(),
  grantor_1: name(),
  grantor_1_forenames: name(),
  grantor_2: name(),
  grantor_2_forenames: name(),
  record_book: str(),
  record_date: isoDate(),
  record_doc: str(),
  record_page: str(),
});

export const percentileRange = obj({ name: str(), low: nullable(int()), high: nullable(int()) });

export const forecastPoint = obj({ value: dollars(int({ min: 0 })) });

/** `{ price_mean, price_upr, price_lwr, fsd }`: the valuation shape shared by value and rental_value. */
export const valuation = obj({
  price_mean: dollars(int({ min: 0 })),
  price_upr: dollars(int({ min: 0 })),
  price_lwr: dollars(int({ min: 0 })),
  fsd: float({ min: 0, max: 1 }),
});

export const hazardPercentiles = { county_percentile: int({ min: 0, max: 100 }), nation_percentile: int({ min: 0, max: 100 }) };
