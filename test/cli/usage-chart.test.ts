import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { runMain } from '../helpers/run-main.js';
import { request } from '../store/contract/fixtures.js';

/** Now: 2026-11-10, noon UTC, a third of the way through November. */
const NOW = Date.parse('2026-11-10T12:00:00Z');
/** USD per day, November 1 to 9 (the 4th spent nothing), and 10 today so far; 2 in late October. */
const SPEND: Record<string, number> = {
  '2026-10-30': 2,
  '2026-11-01': 4,
  '2026-11-02': 8,
  '2026-11-03': 2,
  '2026-11-05': 16,
  '2026-11-06': 4,
  '2026-11-09': 6,
  '2026-11-10': 10,
};
const NOVEMBER = 50;

describe('propdata usage --by day in a terminal: spend you can see', () => {
  let env: Record<string, string>;
  const usage = (args: string[], options: { tty?: boolean; columns?: number; color?: boolean } = {}) =>
    runMain(['usage', ...args, '--account', request(0, '').account], {
      env: { ...env, ...(options.color ? { NO_COLOR: undefined } : {}) },
      clock: new FakeClock(NOW),
      ...(options.tty === false ? {} : { tty: true, columns: options.columns ?? 60 }),
    });

  beforeAll(async () => {
    const home = mkdtempSync(join(tmpdir(), 'propdata-usage-chart-'));
    env = { PROPDATA_HOME: home, PROPDATA_CONFIG_DIR: join(home, 'config') };
    const store = await openStore(join(home, 'propdata.db'));
    let run = 0;
    for (const [day, cost] of Object.entries(SPEND)) {
      // Two requests a day, an hour apart: the day's bar is their sum.
      for (const hour of [1, 2]) {
        run += 1;
        await store.record({
          request: request(Date.parse(`${day}T0${hour}:00:00Z`), `r${run}`, { cost: cost / 2 }),
          windows: [],
          answers: [],
        });
      }
    }
    await store.close();
  });

  /** The chart's rows: a day, its bar (cells of █ ▓ and eighths), its cost. */
  function bars(screen: string): Map<string, { cells: number; cost: number; line: string }> {
    const rows = new Map<string, { cells: number; cost: number; line: string }>();
    for (const line of screen.split('\n')) {
      const match = /^(\d{4}-\d\d(?:-\d\d)?) (.*) +(\d+\.\d\d)$/.exec(line);
      if (!match) continue;
      const eighths = Array.from(match[2]!).reduce(
        (sum, glyph) => sum + (glyph === '█' || glyph === '▓' ? 8 : Math.max(0, ' ▏▎▍▌▋▊▉'.indexOf(glyph))),
        0,
      );
      rows.set(match[1]!, { cells: eighths / 8, cost: Number(match[3]), line });
    }
    return rows;
  }

  it('draws a bar per day, proportional to its cost, against the daily pace of the month’s budget', async () => {
    const { code, stdout } = await usage(['--by', 'day', '--max-cost-month', String(NOVEMBER)]);
    expect(code).toBe(0);
    const lines = stdout.split('\n').filter((line) => !line.startsWith('account '));
    for (const line of lines) expect(line.length, line).toBeLessThan(60);
    const rows = bars(stdout);
    // Every day from the first to the last, a quiet one with no bar.
    expect([...rows.keys()]).toEqual([
      '2026-10-30',
      '2026-10-31',
      '2026-11-01',
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
      '2026-11-05',
      '2026-11-06',
      '2026-11-07',
      '2026-11-08',
      '2026-11-09',
      '2026-11-10',
    ]);
    expect(rows.get('2026-11-04')).toMatchObject({ cells: 0, cost: 0 });
    const widest = rows.get('2026-11-05')!;
    expect(widest.cost).toBe(16);
    // To an eighth of a cell (▓, past the line, to a cell).
    for (const [day, { cells, cost }] of rows) expect(Math.abs(cells - (cost / 16) * widest.cells), day).toBeLessThanOrEqual(1);
    expect(rows.get('2026-11-02')!.cells).toBeCloseTo(widest.cells / 2, 0);
    // The budget's pace, 50 USD over 30 days: a line across the bars, ▓ past it.
    expect(stdout).toContain("└ 1.67 USD a day, the budget's pace");
    const tick = lines.find((line) => line.includes('└'))!.indexOf('└');
    // 2.00 is past the pace: █ up to the line, ▓ from it; a quiet day leaves the line showing.
    expect(rows.get('2026-11-03')!.line.slice(11, tick)).toMatch(/^█+$/);
    expect(rows.get('2026-11-03')!.line.slice(tick)).toMatch(/^▓+ +2\.00$/);
    expect(rows.get('2026-11-04')!.line[tick]).toBe('│');
    expect(rows.get('2026-11-05')!.line).toMatch(/^2026-11-05 █+▓+ 16\.00$/);
    expect(stdout).toMatch(/^TOTAL +52\.00$/m);
    expect(stdout).toContain('2026-11 to date: 50.00 of the 50.00 USD budget (100%)');
    // 50 USD so far; the pace is the 8 whole days after November's first day of spending (36 USD,
    // 4.50 a day: the first day's 4 is counted once, not spread), for the 20 days after today.
    expect(stdout).toContain('at this pace, 140.00 USD by 2026-11-30: over the budget');
    expect(stdout.replace(/\n/g, ' ')).toContain(
      "the pace: 4.50 USD a day, 2026-11's 8 whole days after its first day of spending (2026-11-01, counted once)",
    );
  });

  it('by month: a bar per month against the budget itself, and the month projected without one', async () => {
    const month = await usage(['--by', 'month', '--max-cost-month', '200']);
    const rows = bars(month.stdout);
    expect([...rows.keys()]).toEqual(['2026-10', '2026-11']);
    expect(rows.get('2026-10')!.cells).toBeCloseTo(rows.get('2026-11')!.cells / 25, 0);
    // The budget is past both bars: the line at the chart's end, named to its left.
    expect(month.stdout).toMatch(/^ +200\.00 USD, the month's budget ┘$/m);
    expect(month.stdout).toContain('at this pace, 140.00 USD by 2026-11-30: within the budget');
    const none = await usage(['--by', 'month']);
    expect(none.stdout).not.toContain('budget (');
    expect(none.stdout).toContain('2026-11 to date: 50.00 USD (no budget: --max-cost-month)');
  });

  it('takes the budget from config max-cost-month, fits a narrow terminal, and colors only when color is allowed', async () => {
    expect((await runMain(['config', 'set', 'max-cost-month', '300'], { env })).code).toBe(0);
    const narrow = await usage(['--by', 'day'], { columns: 40 });
    for (const line of narrow.stdout.split('\n').filter((each) => !each.startsWith('account '))) expect(line.length, line).toBeLessThan(40);
    expect(narrow.stdout).toContain("10.00 USD a day, the budget's pace");
    // The text under the chart wraps at the terminal's width.
    expect(narrow.stdout.replace(/\n/g, ' ')).toContain('of the 300.00 USD budget (17%)');
    expect(narrow.stdout).not.toContain('\u001b[');
    const colored = await usage(['--by', 'day'], { columns: 40, color: true });
    expect(colored.stdout).toContain('\u001b[');
    expect(stripVTControlCharacters(colored.stdout)).toBe(narrow.stdout);
  });

  it('is the table of numbers in a pipe, and the same JSON with --json', async () => {
    const piped = await usage(['--by', 'day', '--max-cost-month', '50'], { tty: false });
    expect(piped.stdout).toMatch(/^DAY +REQUESTS +COMPONENTS +BILLED +COST USD/);
    expect(piped.stdout).toMatch(/^2026-11-05 +2 +2 +2 +16\.00/m);
    expect(piped.stdout).not.toMatch(/[█▓│]/);
    const json = JSON.parse((await usage(['--by', 'day', '--json'])).stdout) as { total: { cost: number }; rows: { day: string }[] };
    expect(json.total.cost).toBe(52);
    expect(json.rows.map((row) => row.day)).toEqual(Object.keys(SPEND));
  });
});
