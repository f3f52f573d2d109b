import { round, type Random } from '../random.js';
import { resultRandom, type Generated, type Rule, type RuleTable } from './rule.js';

/** Standard normal quantiles of the 5th to 95th percentiles. */
const QUANTILES = { 5: -1.645, 25: -0.674, 50: 0, 75: 0.674, 95: 1.645 } as const;

/** The centre and spread of a block's values (or rents) for one property type: what its distribution and its homes' percentiles share. */
export interface BlockSpread {
  centre: number;
  perSqft: number;
  spread: number;
}

/** Drawn first from the distribution's own random source, so a within-block answer can draw them again alike. */
export function blockSpread(random: Random, typicalValue: number, rental: boolean): BlockSpread {
  const centre = typicalValue * (rental ? 0.0055 : 1) * random.float(0.8, 1.25, 3);
  const perSqft = centre / random.int(1400, 2200);
  return { centre, perSqft, spread: random.float(0.12, 0.35, 3) };
}

/** The random source of a block distribution's result, as chunk.ts seeds it. */
export const distributionRandom = (rental: boolean, blockId: string, propertyType: string) =>
  resultRandom(rental ? 'block/rental_value_distribution' : 'block/value_distribution', blockId, propertyType);

/** A block's distribution around a centre: ordered percentiles, min below, max above, mean near the median. */
function distribution(rental: boolean): Rule {
  return (_generated, context) => {
    const { random } = context;
    const { centre, perSqft, spread } = blockSpread(random, context.block.typicalValue, rental);
    const stats = (prefix: string, middle: number, decimals: number) => {
      const at = (z: number) => round(middle * (1 + z * spread), decimals);
      return {
        [`${prefix}_5`]: at(QUANTILES[5]),
        [`${prefix}_25`]: at(QUANTILES[25]),
        [`${prefix}_50`]: at(0),
        [`${prefix}_75`]: at(QUANTILES[75]),
        [`${prefix}_95`]: at(QUANTILES[95]),
        [`${prefix}_min`]: Math.floor(at(QUANTILES[5]) * random.float(0.7, 0.95, 3)),
        [`${prefix}_max`]: Math.ceil(at(QUANTILES[95]) * random.float(1.05, 1.4, 3)),
        [`${prefix}_mean`]: round(middle * random.float(0.98, 1.06, 4), 2),
        [`${prefix}_sd`]: round(middle * spread, 2),
        [`${prefix}_count`]: random.int(4, 80),
      };
    };
    const sqft = stats('value_sqft', perSqft, 2);
    sqft.value_sqft_50 = Math.round(sqft.value_sqft_50!);
    return { property_type: context.params.property_type ?? 'SFD', ...stats('value', centre, 2), ...sqft };
  };
}

/**
 * The rings nest: a site the block is on lies within 1 mile, one within 1 mile lies within 4. A
 * site's EPA id begins with the block's state.
 */
const superfund: Rule = (generated, context) => {
  const result = generated();
  const { random, block } = context;
  const sites = (result.within_miles_4.detail as Generated[]).map((site) => ({
    ...site,
    epa_site_id: `${block.state}D${random.int(100_000_000, 999_999_999)}`,
  }));
  const withinOne = sites.slice(0, random.int(0, sites.length));
  const onBlock = withinOne.length > 0 && random.chance(0.03) ? withinOne.slice(0, 1) : [];
  const ring = (detail: Generated[]) => ({ count: detail.length, detail });
  return { within_miles_0: ring(onBlock), within_miles_1: ring(withinOne), within_miles_4: ring(sites) };
};

export const BLOCK_RULES: RuleTable = {
  'block/crime': (generated) => {
    const result = generated();
    const incidents = [result.property, result.violent, result.other].reduce(
      (sum: number, kind: { incidents: number }) => sum + kind.incidents,
      0,
    );
    return { ...result, all: { ...result.all, incidents } };
  },
  'block/hcri': (generated, context) => {
    const result = generated();
    const [low, high] = [result.gross_yield_average, result.gross_yield_median].sort((a: number, b: number) => a - b);
    return { ...result, property_type: context.params.property_type ?? 'SFD', gross_yield_average: high, gross_yield_median: low };
  },
  'block/rental_value_distribution': distribution(true),
  'block/value_distribution': distribution(false),
  'block/superfund': superfund,
};
