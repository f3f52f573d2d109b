import { msaName } from '../area-names.js';
import { areaGrowth } from '../area-draws.js';
import { DATA_DATE, addMonths, isoDay } from '../dates.js';
import { round } from '../random.js';
import type { Rule, RuleContext, RuleTable } from './rule.js';

/**
 * Results of the endpoints beyond the spec (catalog/beyond-spec.ts) at block, zip and msa level,
 * each from one price path per area (areaGrowth): the one value_hpi_adjusted moves values by, and
 * for a ZIP the one its properties' forecasts follow. Series run monthly from a year before the data month to
 * a year after it; an index is 100 at the start.
 */

const SERIES_MONTHS = 12;

/** The annual drift of an area's prices: one per area, whichever endpoint asks. */
const growthOf = (level: 'block' | 'zip' | 'msa', context: RuleContext) => areaGrowth(level, context.block.blockId);

const pathAt = (growth: number, months: number) => (1 + growth) ** (months / 12);

type Span = 'historical' | 'forecast' | 'all';
const SPAN_MONTHS: Readonly<Record<Span, readonly [number, number]>> = {
  historical: [-SERIES_MONTHS, 0],
  forecast: [1, SERIES_MONTHS],
  all: [-SERIES_MONTHS, SERIES_MONTHS],
};

/** Monthly points along the area's path: dollars of a typical home, or an index of 100 at the series start. */
function series(level: 'block' | 'zip' | 'msa', span: Span, index: boolean): Rule {
  return (_generated, context) => {
    const growth = growthOf(level, context);
    const [from, to] = SPAN_MONTHS[span];
    const time_series = Array.from({ length: to - from + 1 }, (_, offset) => {
      const months = from + offset;
      const value = index
        ? round(100 * pathAt(growth, months + SERIES_MONTHS), 2)
        : Math.round(context.block.typicalValue * pathAt(growth, months));
      return { month: isoDay(addMonths(DATA_DATE, months)), value };
    });
    return { time_series };
  };
}

const FORECAST_MONTHS = [3, 6, 12, 18, 24, 30, 36];

const hpiForecast: Rule = (_generated, context) => {
  const growth = growthOf('zip', context);
  const point = (months: number) => ({ value: Math.round(context.block.typicalValue * pathAt(growth, months)) });
  return Object.fromEntries(FORECAST_MONTHS.map((months) => [`month_${String(months).padStart(2, '0')}`, point(months)]));
};

/** Returns over 1, 5 and 10 years along the path; on one path the growth rate is the same over each. */
const returnsOf = (growth: number) => ({
  returns_1yr: round(pathAt(growth, 12) - 1, 4),
  returns_5yr: round(pathAt(growth, 60) - 1, 4),
  returns_10yr: round(pathAt(growth, 120) - 1, 4),
  cagr_1yr: growth,
  cagr_5yr: growth,
  cagr_10yr: growth,
});

/** Bin edges per histogram: counts peak near the middle, as homes cluster around the typical one. */
function histogram(edges: (context: RuleContext) => number[]): Rule {
  return (_generated, context) => {
    const { random } = context;
    const bounds = edges(context);
    const homes = random.int(20, 200);
    const middle = (bounds.length - 2) / 2;
    const bins = bounds.slice(0, -1).map((lower, index) => {
      const weight = Math.max(0.05, 1 - Math.abs(index - middle) / (middle + 1));
      return {
        bin_lower: lower,
        bin_upper: bounds[index + 1]!,
        count: Math.round((homes * weight * random.float(0.7, 1.3, 3)) / bounds.length),
      };
    });
    return { property_type: context.params.property_type ?? 'SFD', bins };
  };
}

const steps = (from: number, step: number, count: number) => Array.from({ length: count + 1 }, (_, index) => round(from + index * step, 2));
/** Round dollar edges around the area's typical value. */
const valueEdges = (typical: number) =>
  steps(Math.round((typical * 0.4) / 10_000) * 10_000, Math.round((typical * 0.2) / 10_000) * 10_000 || 10_000, 8);

const market = (context: RuleContext, share: number) => {
  const { random } = context;
  const inventory = Math.round(random.int(20, 400) * share);
  const monthsOfInventory = random.float(1, 8, 1);
  return {
    inventory_total: inventory,
    price_median: Math.round((context.block.typicalValue * (share < 1 ? 0.8 : 1)) / 1000) * 1000,
    estimated_sales_total: Math.round(inventory / monthsOfInventory),
    days_on_market_median: random.float(10, 90, 1),
    months_of_inventory_median: monthsOfInventory,
  };
};

export const AREA_RULES: RuleTable = {
  'block/histogram_baths': histogram(() => steps(1, 0.5, 8)),
  'block/histogram_beds': histogram(() => steps(1, 1, 6)),
  'block/histogram_building_area': histogram(() => steps(500, 500, 8)),
  'block/histogram_value': histogram((context) => valueEdges(context.block.typicalValue)),
  'block/histogram_value_sqft': histogram((context) =>
    steps(Math.round(context.block.typicalValue / 4000), Math.round(context.block.typicalValue / 8000) || 1, 8),
  ),
  'block/value_ts': series('block', 'all', false),
  'block/value_ts_forecast': series('block', 'forecast', false),
  'block/value_ts_historical': series('block', 'historical', false),
  'zip/details': (_generated, context) => ({ single_family: market(context, 1), multi_family: market(context, 0.3) }),
  'zip/hpi_forecast': hpiForecast,
  'zip/hpi_historical': (_generated, context) => returnsOf(growthOf('zip', context)),
  'zip/hpi_ts': series('zip', 'all', true),
  'zip/hpi_ts_forecast': series('zip', 'forecast', true),
  'zip/hpi_ts_historical': series('zip', 'historical', true),
  'zip/volatility': (_generated, context) => {
    const std = context.random.float(0.01, 0.08, 4);
    return { beta: context.random.float(0.5, 1.5, 3), std_deviation: std, risk_grade: Math.min(5, 1 + Math.floor(std / 0.016)) };
  },
  'msa/details': (_generated, context) => ({
    msa_name: msaName(context.block.blockId, context.block.state),
    ...returnsOf(growthOf('msa', context)),
  }),
  'msa/hpi_ts': series('msa', 'all', true),
  'msa/hpi_ts_forecast': series('msa', 'forecast', true),
  'msa/hpi_ts_historical': series('msa', 'historical', true),
};
