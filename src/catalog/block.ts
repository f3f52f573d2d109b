import { BLOCK_PROPERTY_TYPES } from './enums.js';
import { dollars, float, int, list, obj, oneOf, str, type Schema } from './schema.js';
import { hazardPercentiles } from './shapes.js';
import type { Endpoint, Param } from './types.js';

/** `property_type` of the block-level endpoints, as the spec has it; the beyond-spec area endpoints take it too. */
export const PROPERTY_TYPE: Param = {
  name: 'property_type',
  type: 'string',
  enum: BLOCK_PROPERTY_TYPES,
  default: 'SFD',
  description: 'SFD, TH, CND, INC or MFH (default SFD)',
};

const block = <Target extends string>(
  target: Target,
  description: string,
  price: number,
  result: Schema,
  params: Param[] = [],
): Endpoint<`block/${Target}`> => ({
  name: `block/${target}` as const,
  version: 'v2',
  level: 'block',
  target,
  description,
  params,
  price,
  result,
});

const incidents = obj({ incidents: int({ min: 0 }), ...hazardPercentiles });
const accumulatedEnergy = obj({ accumulated_energy: float({ min: 0 }), ...hazardPercentiles });

const superfundSites = obj({
  count: int({ min: 0 }),
  detail: list(obj({ site_name: str(), epa_site_id: str(), link: str({ format: 'url' }), npl_status: str(), updated_date: str() })),
});

/**
 * The distribution shape of block/rental_value_distribution. The spec does not show the fields of
 * block/value_distribution; we assume the same shape (docs/reference.md, the decisions).
 */
const distribution = obj({
  property_type: oneOf(BLOCK_PROPERTY_TYPES),
  value_5: dollars(float({ min: 0 })),
  value_25: dollars(float({ min: 0 })),
  value_50: dollars(float({ min: 0 })),
  value_75: dollars(float({ min: 0 })),
  value_95: dollars(float({ min: 0 })),
  value_min: dollars(int({ min: 0 })),
  value_max: dollars(int({ min: 0 })),
  value_mean: dollars(float({ min: 0 })),
  value_sd: dollars(float({ min: 0 })),
  value_count: int({ min: 0 }),
  value_sqft_5: dollars(float({ min: 0 })),
  value_sqft_25: dollars(float({ min: 0 })),
  value_sqft_50: dollars(int({ min: 0 })),
  value_sqft_75: dollars(float({ min: 0 })),
  value_sqft_95: dollars(float({ min: 0 })),
  value_sqft_min: dollars(int({ min: 0 })),
  value_sqft_max: dollars(int({ min: 0 })),
  value_sqft_mean: dollars(float({ min: 0 })),
  value_sqft_sd: dollars(float({ min: 0 })),
  value_sqft_count: int({ min: 0 }),
});

/** The 10 block targets of the spec. */
/** Gross rental yield over an area (block/hcri, and zip/hcri beyond the spec). */
export const GROSS_YIELD = obj({
  property_type: oneOf(BLOCK_PROPERTY_TYPES),
  gross_yield_count: int({ min: 0 }),
  gross_yield_average: float({ min: 0 }),
  gross_yield_median: float({ min: 0 }),
});

export const BLOCK_ENDPOINTS = [
  block(
    'crime',
    'Reported incidents near the block in the last two years',
    0.05,
    obj({ all: incidents, property: incidents, violent: incidents, other: incidents }),
  ),
  block(
    'hazard_earthquake',
    'Earthquake ground acceleration (10% in 50 years) and percentiles',
    0.03,
    obj({ max_percent_g: float({ min: 0 }), ...hazardPercentiles }),
  ),
  block('hazard_hail', 'Accumulated hail energy near the block', 0.03, accumulatedEnergy),
  block('hazard_hurricane', 'Accumulated hurricane energy near the block (through 2016)', 0.03, accumulatedEnergy),
  block('hazard_tornado', 'Accumulated tornado energy near the block', 0.03, accumulatedEnergy),
  block('hazard_wind', 'Accumulated wind energy near the block', 0.03, accumulatedEnergy),
  block('hcri', 'Gross rental yield aggregated over the block', 0.05, GROSS_YIELD, [PROPERTY_TYPE]),
  block('rental_value_distribution', 'Distribution of rental values across the block', 0.1, distribution, [PROPERTY_TYPE]),
  block(
    'superfund',
    'Superfund cleanup sites on, within 1 and within 4 miles of the block',
    0.05,
    obj({ within_miles_0: superfundSites, within_miles_1: superfundSites, within_miles_4: superfundSites }),
  ),
  block('value_distribution', 'Distribution of sale values across the block', 0.1, distribution, [PROPERTY_TYPE]),
] as const;
