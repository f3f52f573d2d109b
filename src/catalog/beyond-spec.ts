import { BLOCK_PROPERTY_TYPES } from './enums.js';
import { dollars, float, int, isoDate, list, obj, oneOf, str, type Schema } from './schema.js';
import { GROSS_YIELD, PROPERTY_TYPE } from './block.js';
import { forecastPoint } from './shapes.js';
import type { Endpoint, Level, Param } from './types.js';

/**
 * Endpoints the spec leaves unshown ("Not specified") that clients written for the real service
 * call: the service's own client library names them. Their result shapes are not the service's
 * (unknown) but modelled on their nearest specified relatives: a histogram is bins with counts, a
 * time series dated values, a forecast the forecast points of property/value_forecast. Each is
 * marked `beyondSpec` and says so in its description; docs/reference.md lists them.
 */

const beyond = <L extends Level, Target extends string>(
  level: L,
  target: Target,
  description: string,
  price: number,
  result: Schema,
  params: Param[] = [],
): Endpoint<`${L}/${Target}`> => ({
  name: `${level}/${target}` as const,
  version: 'v2',
  level,
  target,
  description: `${description} (beyond the spec)`,
  params,
  price,
  result,
  beyondSpec: true,
});

const histogram = obj({
  property_type: oneOf(BLOCK_PROPERTY_TYPES),
  bins: list(obj({ bin_lower: float({ min: 0 }), bin_upper: float({ min: 0 }), count: int({ min: 0 }) })),
});

/** Monthly points, oldest first: `value` is dollars for value series, an index (100 at the series' first month) for HPI series. */
const timeSeries = obj({ time_series: list(obj({ month: isoDate(), value: float({ min: 0 }) })) });

const forecast = obj(Object.fromEntries([3, 6, 12, 18, 24, 30, 36].map((m) => [`month_${String(m).padStart(2, '0')}`, forecastPoint])));

const historicalReturns = obj({
  returns_1yr: float(),
  returns_5yr: float(),
  returns_10yr: float(),
  cagr_1yr: float(),
  cagr_5yr: float(),
  cagr_10yr: float(),
});

const market = obj({
  inventory_total: int({ min: 0 }),
  price_median: dollars(int({ min: 0 })),
  estimated_sales_total: int({ min: 0 }),
  days_on_market_median: float({ min: 0 }),
  months_of_inventory_median: float({ min: 0 }),
});

export const BEYOND_SPEC_BLOCK = [
  beyond('block', 'histogram_baths', 'Homes in the block by number of bathrooms', 0.05, histogram, [PROPERTY_TYPE]),
  beyond('block', 'histogram_beds', 'Homes in the block by number of bedrooms', 0.05, histogram, [PROPERTY_TYPE]),
  beyond('block', 'histogram_building_area', 'Homes in the block by building area (sq ft)', 0.05, histogram, [PROPERTY_TYPE]),
  beyond('block', 'histogram_value', 'Homes in the block by sale value', 0.05, histogram, [PROPERTY_TYPE]),
  beyond('block', 'histogram_value_sqft', 'Homes in the block by sale value per sq ft', 0.05, histogram, [PROPERTY_TYPE]),
  beyond('block', 'value_ts', "Monthly typical value of the block's homes, a year back and forward", 0.1, timeSeries, [PROPERTY_TYPE]),
  beyond('block', 'value_ts_forecast', "Monthly typical value of the block's homes, a year forward", 0.1, timeSeries, [PROPERTY_TYPE]),
  beyond('block', 'value_ts_historical', "Monthly typical value of the block's homes, a year back", 0.1, timeSeries, [PROPERTY_TYPE]),
] as const;

export const BEYOND_SPEC_ZIP = [
  beyond(
    'zip',
    'details',
    'Market figures of the ZIP for single- and multi-family homes',
    0.1,
    obj({ single_family: market, multi_family: market }),
  ),
  beyond('zip', 'hcri', 'Gross rental yield aggregated over the ZIP', 0.05, GROSS_YIELD, [PROPERTY_TYPE]),
  beyond('zip', 'hpi_forecast', 'ZIP home price index forecast at 3 to 36 months', 0.1, forecast),
  beyond('zip', 'hpi_historical', 'ZIP home price index returns and growth over 1, 5 and 10 years', 0.1, historicalReturns),
  beyond('zip', 'hpi_ts', 'Monthly ZIP home price index, a year back and forward', 0.1, timeSeries),
  beyond('zip', 'hpi_ts_forecast', 'Monthly ZIP home price index, a year forward', 0.1, timeSeries),
  beyond('zip', 'hpi_ts_historical', 'Monthly ZIP home price index, a year back', 0.1, timeSeries),
  beyond(
    'zip',
    'volatility',
    'How much the ZIP home price index moves',
    0.1,
    obj({ beta: float(), std_deviation: float({ min: 0 }), risk_grade: int({ min: 1, max: 5 }) }),
  ),
] as const;

export const BEYOND_SPEC_MSA = [
  beyond(
    'msa',
    'details',
    'Name and home price index returns of the metro area',
    0.1,
    obj({ msa_name: str(), ...historicalReturns.fields }),
  ),
  beyond('msa', 'hpi_ts', 'Monthly metro home price index, a year back and forward', 0.1, timeSeries),
  beyond('msa', 'hpi_ts_forecast', 'Monthly metro home price index, a year forward', 0.1, timeSeries),
  beyond('msa', 'hpi_ts_historical', 'Monthly metro home price index, a year back', 0.1, timeSeries),
] as const;

/** `property/ltv`, the client library's name for the loan-to-value figures: the result of property/ltv_details. */
export function propertyLtv(ltvDetails: Endpoint): Endpoint<'property/ltv'> {
  return {
    ...ltvDetails,
    name: 'property/ltv',
    target: 'ltv',
    description: `${ltvDetails.description} (beyond the spec: property/ltv_details by another name)`,
    mirrors: ltvDetails.name,
    beyondSpec: true,
  };
}

/** component_mget at the block, zip and msa levels: the property-level one's rules, for that level's items. */
export function levelMget<L extends Level>(propertyMget: Endpoint, level: L): Endpoint<`${L}/component_mget`> {
  return {
    ...propertyMget,
    name: `${level}/component_mget` as const,
    level,
    description: `${propertyMget.description} (${level} level; beyond the spec)`,
    beyondSpec: true,
  };
}
