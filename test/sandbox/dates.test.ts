import { describe, expect, it } from 'vitest';
import { addMonths, isoDay, wholeYearsBetween } from '../../src/sandbox/generate/dates.js';

const day = (text: string) => new Date(`${text}T00:00:00Z`);

describe('addMonths', () => {
  it('keeps the day of the month when the target month has it', () => {
    expect(isoDay(addMonths(day('2024-01-15'), 1))).toBe('2024-02-15');
    expect(isoDay(addMonths(day('2024-03-31'), -12))).toBe('2023-03-31');
  });

  it("clamps to the target month's last day instead of running into the next month", () => {
    expect(isoDay(addMonths(day('2024-01-31'), 1))).toBe('2024-02-29');
    expect(isoDay(addMonths(day('2023-01-31'), 1))).toBe('2023-02-28');
    expect(isoDay(addMonths(day('2024-03-31'), 1))).toBe('2024-04-30');
    expect(isoDay(addMonths(day('2024-03-31'), -1))).toBe('2024-02-29');
    expect(isoDay(addMonths(day('2024-02-29'), 12))).toBe('2025-02-28');
    expect(isoDay(addMonths(day('2024-08-31'), 30 * 12 + 6))).toBe('2055-02-28');
  });

  it('keeps the time of day', () => {
    expect(addMonths(new Date('2024-01-31T09:30:00Z'), 1).toISOString()).toBe('2024-02-29T09:30:00.000Z');
  });
});

describe('wholeYearsBetween', () => {
  it('counts a year from Feb 29 once Feb 28 of a common year is reached', () => {
    expect(wholeYearsBetween(day('2024-02-29'), day('2025-02-28'))).toBe(1);
    expect(wholeYearsBetween(day('2024-02-29'), day('2025-02-27'))).toBe(0);
  });
});
