import type { Random } from './random.js';

/**
 * The month the synthetic records are "as of". Historical dates are laid out relative to this fixed
 * month, not to the clock, so that the same address gives the same answer on any day; only the
 * parameters the spec ties to "the current month" (value_hpi_adjusted) read the clock.
 */
export const DATA_MONTH = '2025-05';
export const DATA_DATE = new Date(`${DATA_MONTH}-01T00:00:00Z`);

export const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** The same day `months` later (or earlier), clamped to the month's last day: 2024-01-31 + 1 is 2024-02-29. */
export function addMonths(date: Date, months: number): Date {
  const moved = new Date(date.getTime());
  const day = moved.getUTCDate();
  moved.setUTCDate(1);
  moved.setUTCMonth(moved.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(moved.getUTCFullYear(), moved.getUTCMonth() + 1, 0)).getUTCDate();
  moved.setUTCDate(Math.min(day, lastDay));
  return moved;
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}

export function monthsBetween(from: Date, to: Date): number {
  return (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
}

/** Whole years from one date to another, counting a year only once its anniversary is reached. */
export function wholeYearsBetween(from: Date, to: Date): number {
  const years = to.getUTCFullYear() - from.getUTCFullYear();
  return addMonths(from, years * 12) > to ? years - 1 : years;
}

/** A day between `yearsBack` years before DATA_DATE and `yearsBackEnd` years before it. */
export function dayInPast(random: Random, yearsBack: number, yearsBackEnd = 0): Date {
  const span = (yearsBack - yearsBackEnd) * 365;
  return addDays(DATA_DATE, -Math.round(yearsBackEnd * 365 + random.next() * span));
}

/** The first day of the month of `ms`, as yyyy-mm-01. */
export function firstOfMonth(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 7)}-01`;
}
