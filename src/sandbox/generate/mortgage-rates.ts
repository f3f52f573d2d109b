import { randomFor, round } from './random.js';

/**
 * The public 30- and 15-year mortgage rates of a month: one figure for every lien recorded that
 * month, following the real level of the time, so that a 2021 loan is near 3% and a 2023 one near 7%.
 */

/** Approximate yearly averages of the 30-year fixed rate (Freddie Mac PMMS, public figures), from 1980. */
const THIRTY_YEAR_BY_YEAR = [
  13.74,
  16.63,
  16.04,
  13.24,
  13.88,
  12.43,
  10.19,
  10.21,
  10.34,
  10.32, // 1980s
  10.13,
  9.25,
  8.39,
  7.31,
  8.38,
  7.93,
  7.81,
  7.6,
  6.94,
  7.44, // 1990s
  8.05,
  6.97,
  6.54,
  5.83,
  5.84,
  5.87,
  6.41,
  6.34,
  6.03,
  5.04, // 2000s
  4.69,
  4.45,
  3.66,
  3.98,
  4.17,
  3.85,
  3.65,
  3.99,
  4.54,
  3.94, // 2010s
  3.11,
  2.96,
  5.34,
  6.81,
  6.72,
  6.8, // 2020 to 2025
];
const FIRST_YEAR = 1980;
/** The 15-year rate runs this far below the 30-year one. */
const FIFTEEN_YEAR_SPREAD = 0.6;

export function publicRates(date: Date): { thirty: number; fifteen: number } {
  const index = Math.max(0, Math.min(THIRTY_YEAR_BY_YEAR.length - 1, date.getUTCFullYear() - FIRST_YEAR));
  const month = date.toISOString().slice(0, 7);
  const thirty = round(THIRTY_YEAR_BY_YEAR[index]! + randomFor('public-rate', month).float(-0.2, 0.2, 2), 2);
  return { thirty, fifteen: round(thirty - FIFTEEN_YEAR_SPREAD, 2) };
}
