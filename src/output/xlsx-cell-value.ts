import type { CellKind } from './xlsx-cell-kinds.js';

/** What exceljs writes: a string is always text (never a formula), a Date a date, null an empty cell. */
export type CellValue = string | number | boolean | Date | null;

/** Excel's limit for the text of one cell; a longer cell makes Excel "repair" the whole file. */
const MAX_CELL_TEXT = 32_767;
const CUT_MARK = '…';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A value as text, as the CSV output writes it (objects and lists as JSON). A cell too long for
 * Excel is cut with a mark rather than let Excel refuse the workbook.
 */
export function textCell(value: unknown): string {
  const text =
    typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  return text.length <= MAX_CELL_TEXT ? text : `${text.slice(0, MAX_CELL_TEXT - CUT_MARK.length)}${CUT_MARK}`;
}

/** `2024-03-01` as a date at midnight UTC (exceljs counts days in UTC); an impossible date stays text. */
export function isoDate(value: string): Date | undefined {
  const match = ISO_DATE.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : undefined;
}

/** One value, as its column's kind says. Input columns are resolved to a kind before this is called. */
export function cellValue(kind: CellKind, value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  switch (kind.type) {
    case 'digits':
      // A service that sends an identifier as a number has already dropped its leading zeros.
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
        ? String(value).padStart(kind.length, '0')
        : textCell(value);
    case 'number':
    case 'money':
      return typeof value === 'number' && Number.isFinite(value) ? value : textCell(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : textCell(value);
    case 'date':
      return (typeof value === 'string' && isoDate(value)) || textCell(value);
    case 'any':
      if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
      return textCell(value);
    default:
      return textCell(value);
  }
}
