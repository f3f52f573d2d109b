import type { AnswerCount } from './store-api.js';

/**
 * The latest moment a time can name, in epoch ms either way from 1970 (what a JavaScript Date
 * holds). A kept time beyond it, or one that is no number at all (text put in an SQLite column
 * by hand, where a column's type does not bind), is unreadable: `store info` leaves it out of
 * the oldest and newest answers and counts it (unreadableTimesNote), rather than fail on it.
 */
export const MAX_TIME_MS = 8_640_000_000_000_000;

/** What `store info` says of answers whose time is unreadable. */
export function unreadableTimesNote(count: number): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? 'answer has' : 'answers have'} an unreadable time (not a moment in milliseconds): left out of OLDEST and NEWEST`;
}

/** A row of `store info`'s query, each driver's: oldest and newest over the readable times only (null when none is), and how many are not. */
export type AnswerCountRow = Omit<AnswerCount, 'oldest' | 'newest'> & { oldest: number | null; newest: number | null; unreadable: number };

/** The answers' counts as StoreInfo has them (NaN where a group has no readable time), and how many answers have an unreadable time. */
export function countsOf(rows: readonly AnswerCountRow[]): { answers: AnswerCount[]; unreadableTimes: number } {
  return {
    answers: rows.map(({ unreadable: _, oldest, newest, ...row }) => ({
      ...row,
      oldest: oldest ?? Number.NaN,
      newest: newest ?? Number.NaN,
    })),
    unreadableTimes: rows.reduce((sum, row) => sum + row.unreadable, 0),
  };
}
