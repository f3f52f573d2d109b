import { describe, expect, it } from 'vitest';
import { projectMonth, type DayCost } from '../../src/cli/commands/month-projection.js';

/** `cost` USD on each day from `from` to `to` (inclusive, UTC). */
function nights(from: string, to: string, cost: number): DayCost[] {
  const days: DayCost[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000)
    days.push({ key: new Date(at).toISOString().slice(0, 10), cost });
  return days;
}

/** December 1st, 01:30 UTC: the night's job (at 01:15) has just run. */
const DECEMBER_FIRST = Date.parse('2026-12-01T01:30:00Z');

describe("the month's projection (usage --by day)", () => {
  it("on the 1st, does not spread the first night's bulk over the month: it takes the last month's steady nights", () => {
    // November: the file's first night bought every row (480), each night after it what changed (25).
    const days = [{ key: '2026-11-01', cost: 480 }, ...nights('2026-11-02', '2026-11-30', 25), { key: '2026-12-01', cost: 500 }];
    const projection = projectMonth(days, DECEMBER_FIRST);
    expect(projection.monthToDate).toBe(500);
    // 500 tonight and 25 a night for December's 30 other days: not 500 / (1.5 h of 31 days) = 256,000.
    expect(projection.projected).toBe(500 + 30 * 25);
    expect(projection.basis).toBe(
      "the pace: 25.00 USD a day, 2026-11's 29 days after its first day of spending (2026-12 has no whole day after its first yet)",
    );
  });

  it("on the 1st of a store's first month, says there is no pace yet rather than project one night", () => {
    const projection = projectMonth([{ key: '2026-12-01', cost: 500 }], DECEMBER_FIRST);
    expect(projection).toEqual({
      monthToDate: 500,
      projected: undefined,
      basis: 'no pace yet to project 2026-12 by: its first day of spending is all there is, and the days after it will set the pace',
    });
  });

  it('later in the month, takes the whole days after its first day of spending, quiet ones too', () => {
    const days = [{ key: '2026-12-01', cost: 500 }, ...nights('2026-12-02', '2026-12-07', 30), ...nights('2026-12-08', '2026-12-10', 0)];
    // The 11th at noon: the 2nd to the 10th are whole days (180 USD in 9, three of them quiet), 20 days follow today.
    const projection = projectMonth(days, Date.parse('2026-12-11T12:00:00Z'));
    expect(projection.monthToDate).toBe(680);
    expect(projection.projected).toBeCloseTo(680 + 20 * 20, 6);
    expect(projection.basis).toMatch(
      /^the pace: 20\.00 USD a day, 2026-12's 9 whole days after its first day of spending \(2026-12-01, counted once\)$/,
    );
  });
});
