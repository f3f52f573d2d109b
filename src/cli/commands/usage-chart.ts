import type { ChalkInstance } from 'chalk';
import type { Usage } from '../../store/index.js';
import { monthOf } from '../../store/spend.js';
import { projectMonth, type DayCost } from './month-projection.js';
import { wrap } from './text-table.js';

/** What the chart draws: a bar per day or per month, the month's budget when one is set. */
export interface ChartSpend {
  by: 'day' | 'month';
  usage: Usage;
  /** The terminal's columns: the chart fits them, its last column left free (a full line wraps). */
  width: number;
  /** Now, in epoch ms: the month the budget and the projection are about. */
  now: number;
  /** USD billed each day of the month holding `now` and of the month before, whatever `--since` showed: the projection's pace. */
  days: readonly DayCost[];
  /** --max-cost-month (or the config's). */
  budget: number | undefined;
  paint: ChalkInstance;
}

const DAY_MS = 86_400_000;
/** A cell's eighths, for a bar's last cell: bars of 2.5 and 2.6 cells read apart. */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const FULL = '█';
/** The part of a bar past the budget's line: told apart without color too. */
const OVER = '▓';
const LINE = '│';
const MIN_BAR = 10;

const usd = (value: number) => value.toFixed(2);
const daysInMonth = (at: number) => {
  const [start, end] = monthOf(at);
  return (end - start) / DAY_MS;
};
const dayAt = (key: string) => Date.parse(`${key}T00:00:00Z`);
const monthAt = (key: string) => Date.parse(`${key}-01T00:00:00Z`);

/** Every day or month from the first row's to the last's, a quiet one at 0: a gap is a thing to see. */
function costsByKey({ by, usage }: ChartSpend): { key: string; cost: number }[] {
  const costs = new Map(usage.rows.map((row) => [row.key, row.cost]));
  const keys = usage.rows.map((row) => row.key).sort();
  if (keys.length === 0) return [];
  const [first, last] = [keys[0]!, keys.at(-1)!];
  const filled: string[] = [];
  for (let key = first; key <= last;) {
    filled.push(key);
    key =
      by === 'day'
        ? new Date(dayAt(key) + DAY_MS).toISOString().slice(0, 10)
        : new Date(monthOf(monthAt(key))[1]).toISOString().slice(0, 7);
  }
  return filled.map((key) => ({ key, cost: costs.get(key) ?? 0 }));
}

/** The budget's share of a row: the month's budget for a month, its daily pace for a day. */
function budgetLine(spend: ChartSpend, key: string): number | undefined {
  if (spend.budget === undefined) return undefined;
  return spend.by === 'month' ? spend.budget : spend.budget / daysInMonth(dayAt(key));
}

/** `cells` wide: the bar's whole cells and its last eighths, past `line` (a cell index) in the over-budget glyph. */
function bar(value: number, cells: number, line: number | undefined, paint: ChalkInstance): string {
  const eighths = Math.round(value * 8);
  const whole = Math.floor(eighths / 8);
  if (line === undefined || whole <= line) {
    const body = FULL.repeat(whole) + EIGHTHS[eighths % 8]!;
    const padded = body.padEnd(cells);
    if (line === undefined || line >= cells) return paint.cyan(padded);
    return (
      paint.cyan(padded.slice(0, line)) + (padded[line] === ' ' ? paint.yellow(LINE) : paint.cyan(padded[line]!)) + padded.slice(line + 1)
    );
  }
  return paint.cyan(FULL.repeat(line)) + paint.red(OVER.repeat(Math.min(whole, cells) - line)) + ' '.repeat(Math.max(0, cells - whole));
}

/** Month to date against the budget, where the month ends at its pace so far, and what that pace is. */
function monthLines(spend: ChartSpend): string[] {
  const [start, end] = monthOf(spend.now);
  const month = new Date(start).toISOString().slice(0, 7);
  const { monthToDate, projected, basis } = projectMonth(spend.days, spend.now);
  const lastDay = new Date(end - DAY_MS).toISOString().slice(0, 10);
  const pace = projected === undefined ? [] : [`at this pace, ${usd(projected)} USD by ${lastDay}`];
  if (spend.budget === undefined) return [`${month} to date: ${usd(monthToDate)} USD (no budget: --max-cost-month)`, ...pace, basis];
  const share = Math.round((100 * monthToDate) / spend.budget);
  const verdict = (projected ?? monthToDate) > spend.budget ? 'over the budget' : 'within the budget';
  const judged = pace.length > 0 ? [`${pace[0]!}: ${verdict}`] : monthToDate > spend.budget ? ['over the budget already'] : [];
  return [`${month} to date: ${usd(monthToDate)} of the ${usd(spend.budget)} USD budget (${share}%)`, ...judged, basis];
}

/** Lines of text wrapped to the terminal, the verdict on the budget in its color. */
function textLines(spend: ChartSpend, lines: readonly string[]): string[] {
  const colored = (line: string) =>
    line.replace(/over the budget|within the budget/, (verdict) =>
      verdict.startsWith('over') ? spend.paint.red(verdict) : spend.paint.green(verdict),
    );
  return lines.flatMap((line) => wrap(line, spend.width - 1)).map(colored);
}

/** Under the bars, the budget's line: a tick at its column and what it stands for, on whichever side has room. */
function budgetFooter(spend: ChartSpend, line: number, at: number, indent: number): string {
  const what = spend.by === 'day' ? `${usd(line)} USD a day, the budget's pace` : `${usd(line)} USD, the month's budget`;
  const fitsRight = indent + at + 2 + what.length < spend.width;
  if (fitsRight) return `${' '.repeat(indent + at)}${spend.paint.yellow('└')} ${what}`;
  return `${' '.repeat(Math.max(0, indent + at - what.length - 1))}${what} ${spend.paint.yellow('┘')}`;
}

/**
 * `usage --by day|month` in a terminal: a horizontal bar of cost per row, proportional, with the
 * cost at its end; with a monthly budget, a line across the bars at its share of a row (the
 * budget for a month, its daily pace for a day), the part of a bar past it drawn ▓; then the
 * totals and the month to date against the budget, projected to the month's end.
 */
export function usageChart(spend: ChartSpend): string {
  const rows = costsByKey(spend);
  const labelWidth = Math.max(5, ...rows.map((row) => row.key.length));
  const lines = rows.map((row) => budgetLine(spend, row.key));
  const valueWidth = Math.max(...[...rows.map((row) => row.cost), spend.usage.total.cost].map((cost) => usd(cost).length));
  const cells = Math.max(MIN_BAR, spend.width - 1 - labelWidth - 1 - 1 - valueWidth);
  const scale = Math.max(...rows.map((row) => row.cost), ...lines.filter((line) => line !== undefined), 0.01);
  const out = [`${spend.by.toUpperCase().padEnd(labelWidth)} ${'COST USD'.padStart(cells + 1 + valueWidth)}`];
  rows.forEach((row, index) => {
    const line = lines[index];
    const at = line === undefined ? undefined : Math.min(cells - 1, Math.round((line / scale) * cells));
    out.push(
      `${row.key.padEnd(labelWidth)} ${bar((row.cost / scale) * cells, cells, at, spend.paint)} ${usd(row.cost).padStart(valueWidth)}`,
    );
  });
  const last = lines.at(-1);
  if (last !== undefined) out.push(budgetFooter(spend, last, Math.min(cells - 1, Math.round((last / scale) * cells)), labelWidth + 1));
  const { cost, requests, saved } = spend.usage.total;
  out.push(`${'TOTAL'.padEnd(labelWidth)} ${usd(cost).padStart(cells + 1 + valueWidth)}`);
  out.push(...textLines(spend, [`${requests} requests; ${usd(saved)} USD saved by the store`, ...monthLines(spend)]));
  return `${out.join('\n')}\n`;
}
