import { monthOf } from '../../store/spend.js';

/** A UTC day's cost: `2026-11-05`, USD. */
export interface DayCost {
  key: string;
  cost: number;
}

/** Where the month ends at the pace so far, and what that pace was taken from, in words. */
export interface MonthProjection {
  monthToDate: number;
  /** Undefined when there is no pace to go by yet (the month's first day of spending, and no earlier month's). */
  projected: number | undefined;
  basis: string;
}

const DAY_MS = 86_400_000;
const usd = (value: number) => value.toFixed(2);
const dayKey = (at: number) => new Date(at).toISOString().slice(0, 10);
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The steady daily cost of the days in [from, to) after the first that spent anything: a file's
 * first night buys every row, the nights after it only what changed, so the first is no pace.
 * Undefined when no whole day follows it.
 */
function steadyPace(
  costs: ReadonlyMap<string, number>,
  from: number,
  to: number,
): { perDay: number; days: number; first: string } | undefined {
  let first: number | undefined;
  for (let day = from; day < to && first === undefined; day += DAY_MS) if ((costs.get(dayKey(day)) ?? 0) > 0) first = day;
  if (first === undefined || first + DAY_MS >= to) return undefined;
  let sum = 0;
  let days = 0;
  for (let day = first + DAY_MS; day < to; day += DAY_MS) {
    sum += costs.get(dayKey(day)) ?? 0;
    days += 1;
  }
  return { perDay: sum / days, days, first: dayKey(first) };
}

/**
 * The month holding `now` projected to its end: what it has spent, plus a steady daily cost for
 * each day after today. The pace is this month's whole days after its first day of spending (that
 * day's bulk counted once, not spread over the month); with none yet (on the 1st, or the day the
 * first night ran), the last month's days after its first; with neither, no projection.
 */
export function projectMonth(days: readonly DayCost[], now: number): MonthProjection {
  const costs = new Map(days.map((day) => [day.key, day.cost]));
  const [start, end] = monthOf(now);
  const today = Date.parse(`${dayKey(now)}T00:00:00Z`);
  let monthToDate = 0;
  for (let day = start; day <= today; day += DAY_MS) monthToDate += costs.get(dayKey(day)) ?? 0;
  const daysLeft = Math.round((end - today) / DAY_MS) - 1;
  const month = dayKey(start).slice(0, 7);
  const thisMonth = steadyPace(costs, start, today);
  if (thisMonth) {
    return {
      monthToDate,
      projected: monthToDate + thisMonth.perDay * daysLeft,
      basis: `the pace: ${usd(thisMonth.perDay)} USD a day, ${month}'s ${plural(thisMonth.days, 'whole day')} after its first day of spending (${thisMonth.first}, counted once)`,
    };
  }
  const [lastStart] = monthOf(start - 1);
  const lastMonth = steadyPace(costs, lastStart, start);
  if (lastMonth) {
    return {
      monthToDate,
      projected: monthToDate + lastMonth.perDay * daysLeft,
      basis: `the pace: ${usd(lastMonth.perDay)} USD a day, ${dayKey(lastStart).slice(0, 7)}'s ${plural(lastMonth.days, 'day')} after its first day of spending (${month} has no whole day after its first yet)`,
    };
  }
  return {
    monthToDate,
    projected: undefined,
    basis: `no pace yet to project ${month} by: its first day of spending is all there is, and the days after it will set the pace`,
  };
}
