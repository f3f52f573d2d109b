/**
 * A workbook cell as the text a CSV export of it would hold, so that everything after the reader
 * (validation, the output's input columns, resume) sees what it sees for CSV.
 */

/** A cell as the sheet stores it, once its shared string and its style are looked up. */
export type SheetCell =
  | { kind: 'text'; text: string }
  /** `date`: its style shows it as a date, a day count from 1899-12-30 (from 1904-01-01 in a `date1904` workbook). */
  | { kind: 'number'; value: number; date: boolean; date1904: boolean }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'error'; code: string }
  /** A cell of type `d`: an ISO 8601 date and time, as LibreOffice and SheetJS can write. */
  | { kind: 'date'; iso: string };

/** Excel keeps 15 significant digits; a longer number is shown, and exported, in scientific notation. */
const EXACT_DIGITS = 15;
const MS_PER_DAY = 86_400_000;
/** Day 0 of Excel's 1900 date system, as a Unix time. */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/** A number format with date or time parts outside quotes and brackets (as exceljs and openpyxl decide it). */
export function isDateFormat(numFmt: string | undefined): boolean {
  if (!numFmt) return false;
  return /[ymdhsb]/i.test(numFmt.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));
}

/** `1.23456789012346E+18`: how Excel shows a number with more digits than it keeps. */
export function scientific(value: number, significant = EXACT_DIGITS): string {
  const [mantissa, exponent] = value.toExponential(significant - 1).split('e');
  const trimmed = mantissa!.includes('.') ? mantissa!.replace(/\.?0+$/, '') : mantissa!;
  const power = Number(exponent);
  return `${trimmed}E${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
}

/** A number as Excel exports it: at most 15 significant digits, never a float artefact (0.30000000000000004). */
export function numberText(value: number): string {
  if (!Number.isFinite(value)) return '';
  if (Number.isInteger(value) && Math.abs(value) >= 10 ** EXACT_DIGITS) return scientific(value);
  return String(Number(value.toPrecision(EXACT_DIGITS)));
}

/** `2024-03-01`, or `2024-03-01T09:30:00` when the cell has a time of day. */
function dateText(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
}

/** Days between 1899-12-30 and 1904-01-01, the day 0 of the 1904 date system. */
const DAYS_1904 = 1462;

function serialDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial + (date1904 ? DAYS_1904 : 0)) * MS_PER_DAY + EXCEL_EPOCH_MS));
}

/** `2024-03-01T09:30:00` names a time of day in no zone: as the sheet shows it, not moved to UTC. */
function isoDate(iso: string): Date {
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(iso) || !iso.includes('T') ? iso : `${iso}Z`);
}

/**
 * The text of a cell as a CSV export shows it: a date as an ISO date, a number with at most 15
 * significant digits, TRUE and FALSE, an error cell its code (`#N/A`). A formula's cell holds
 * its cached result, so it reads as that result.
 */
export function cellText(cell: SheetCell): string {
  switch (cell.kind) {
    case 'text':
      return cell.text;
    case 'number':
      return cell.date ? dateText(serialDate(cell.value, cell.date1904)) : numberText(cell.value);
    case 'boolean':
      return cell.value ? 'TRUE' : 'FALSE';
    case 'error':
      return cell.code;
    case 'date': {
      const date = isoDate(cell.iso);
      return Number.isNaN(date.getTime()) ? cell.iso : dateText(date);
    }
  }
}
