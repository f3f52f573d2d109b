import { firstOfMonth, monthsBetween } from '../dates.js';
import { areaGrowth } from '../area-draws.js';
import { round } from '../random.js';
import { blockSpread, distributionRandom } from './block.js';
import { propertyOf, type Generated, type Rule, type RuleTable } from './rule.js';

/** The spec's confidence band: upr = mean * (1 + fsd), lwr = mean * (1 - fsd). */
const band = (mean: number, fsd: number) => ({
  price_mean: mean,
  price_upr: Math.round(mean * (1 + fsd)),
  price_lwr: Math.round(mean * (1 - fsd)),
  fsd,
});

function forecast(months: readonly string[], base: number, annualGrowth: number, step: number): Generated {
  return Object.fromEntries(
    months.map((name) => [name, { value: Math.round((base * (1 + annualGrowth) ** (Number(name.slice(6)) / 12)) / step) * step }]),
  );
}

const PERCENTILE_BANDS: ReadonlyArray<readonly [number | null, number | null]> = [
  [null, 5],
  [5, 25],
  [25, 50],
  [50, 75],
  [75, 95],
  [95, null],
];

/** The percentile band containing `percentile`; open-ended bands carry a null bound, as the spec says. */
function percentileRange(percentile: number) {
  const [low, high] = PERCENTILE_BANDS.find(([, upper]) => upper === null || percentile < upper)!;
  const name = low === null ? `<${high}` : high === null ? `>${low}` : `${low}-${high}`;
  return { name, low, high };
}

/** The standard normal distribution function (Abramowitz and Stegun 7.1.26; error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Where a figure falls in a distribution with this middle and relative spread, as the block distribution lays out its percentiles. */
function percentileIn(figure: number, middle: number, spread: number): number {
  return Math.max(0, Math.min(99, Math.floor(100 * normalCdf((figure / middle - 1) / spread))));
}

/**
 * The property's (and the caller's) figure placed in its block's own distribution for the
 * property's type: the one block/value_distribution (or rental_value_distribution) reports.
 */
function withinBlock(rental: boolean): Rule {
  return (_generated, context) => {
    const { facts } = propertyOf(context);
    const { centre, perSqft, spread } = blockSpread(
      distributionRandom(rental, context.block.blockId, facts.blockCode),
      context.block.typicalValue,
      rental,
    );
    const own = rental ? facts.rentMean : facts.valueMean;
    const clientValue = context.params.client_value;
    const clientSqft = context.params.client_value_sqft;
    return {
      property_type: facts.blockCode,
      service_value_percentile_range: percentileRange(percentileIn(own, centre, spread)),
      service_value_sqft_percentile_range: percentileRange(percentileIn(own / facts.sqft, perSqft, spread)),
      client_value_percentile_range: clientValue === undefined ? null : percentileRange(percentileIn(Number(clientValue), centre, spread)),
      client_value_sqft_percentile_range:
        clientSqft === undefined ? null : percentileRange(percentileIn(Number(clientSqft), perSqft, spread)),
    };
  };
}

/** Combined effect of the requested additions; adjusted_*_to only for the additions sent. */
const valueDetailsAdjusted: Rule = (_generated, context) => {
  const { facts } = propertyOf(context);
  const perSqft = facts.valueMean / facts.sqft;
  const added = (name: string) => (context.params[name] === undefined ? undefined : Number(context.params[name]));
  const [beds, baths, sqft, pools] = ['add_beds', 'add_baths', 'add_sqft', 'add_pools'].map(added);
  const adjusted: Record<string, number> = {};
  let value = facts.valueMean;
  if (beds !== undefined) {
    adjusted.adjusted_beds_to = facts.beds + beds;
    value += beds * perSqft * 140;
  }
  if (baths !== undefined) {
    adjusted.adjusted_baths_to = facts.baths + baths;
    value += baths * perSqft * 55;
  }
  if (sqft !== undefined) {
    adjusted.adjusted_sqft_to = facts.sqft + sqft;
    value += sqft * perSqft * 0.7;
  }
  if (pools !== undefined) {
    adjusted.adjusted_pools_to = (facts.pool ? 1 : 0) + pools;
    value += facts.valueMean * (facts.pool ? 0.01 : 0.04);
  }
  return { adjusted_value_to: Math.round(value / 1000) * 1000, ...adjusted };
};

const HPI_LEVELS = ['block', 'blockgroup', 'zip', 'msa', 'state'] as const;

/** Each level's index grows at its area's steady rate (areaGrowth) from January 2000: enough to move values between months. */
function indexAt(growth: number, isoDate: string): number {
  return (1 + growth) ** (monthsBetween(new Date('2000-01-01T00:00:00Z'), new Date(`${isoDate}T00:00:00Z`)) / 12);
}

const valueHpiAdjusted: Rule = (_generated, context) => {
  const { place, facts } = propertyOf(context);
  const levelKeys = {
    block: place.blockId,
    blockgroup: place.blockId.slice(0, 12),
    zip: place.zip,
    msa: place.msa ?? place.state,
    state: place.state,
  };
  const growth = Object.fromEntries(HPI_LEVELS.map((level) => [level, areaGrowth(level, levelKeys[level])]));
  const currentMonth = firstOfMonth(context.nowMs);
  const toDate = String(context.params.adjust_to_date ?? currentMonth);
  const adjust = (fromValue: number, fromDate: string) => ({
    from_value: fromValue,
    from_date: fromDate,
    to_date: toDate,
    adjusted_by: Object.fromEntries(
      HPI_LEVELS.map((level) => [level, Math.round((fromValue * indexAt(growth[level]!, toDate)) / indexAt(growth[level]!, fromDate))]),
    ),
  });
  const clientValue = context.params.client_value;
  return {
    client_value_adjusted:
      clientValue === undefined ? null : adjust(Math.round(Number(clientValue)), String(context.params.client_date ?? currentMonth)),
    service_value_adjusted: adjust(facts.valueMean, currentMonth),
  };
};

const monthsOf = (result: Generated) => Object.keys(result);

export const VALUATION_RULES: RuleTable = {
  'property/value': (_generated, context) => {
    const { facts } = propertyOf(context);
    return { value: band(facts.valueMean, facts.valueFsd) };
  },
  'property/rental_value': (_generated, context) => {
    const { facts } = propertyOf(context);
    return band(facts.rentMean, facts.rentFsd);
  },
  'property/land_value': (_generated, context) => {
    const { facts } = propertyOf(context);
    const { price_mean, price_upr, price_lwr, fsd } = band(facts.landMean, facts.landFsd);
    return { land_value: { value_mean: price_mean, value_upr: price_upr, value_lwr: price_lwr, fsd } };
  },
  'property/rental_yield': (_generated, context) => {
    const { facts } = propertyOf(context);
    return { gross_yield: round((facts.rentMean * 12) / facts.valueMean, 4), value: facts.valueMean, monthly_rent: facts.rentMean };
  },
  'property/value_forecast': (generated, context) => {
    const result = generated();
    const { facts } = propertyOf(context);
    return forecast(monthsOf(result), facts.valueMean, facts.valueGrowth, 100);
  },
  'property/rental_value_forecast': (generated, context) => {
    const result = generated();
    const { facts } = propertyOf(context);
    return forecast(monthsOf(result), facts.rentMean, facts.rentGrowth, 5);
  },
  'property/value_within_block': withinBlock(false),
  'property/rental_value_within_block': withinBlock(true),
  'property/value_details_adjusted': valueDetailsAdjusted,
  'property/value_hpi_adjusted': valueHpiAdjusted,
};
