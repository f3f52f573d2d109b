/**
 * A workbook cell as the text a CSV export of it would hold, so that everything after the reader
 * (validation, the output's input columns, resume) sees what it sees for CSV.
 */

/** What the streaming reader gives for a cell: a plain value, or one of exceljs's value objects. */
export interface SheetCell {
  value: unknown;
  numFmt?: string;
}

/** Excel keeps 15 significant digits; a longer number is shown, and exported, in scientific notation. */
const EXACT_DIGITS = 15;
const MS_PER_DAY = 86_400_000;
/** Day 0 of Excel's 1900 date system, as a Unix time. */
const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/** As exceljs decides it: a number format with date or time parts outside quotes and brackets. */
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
export function dateText(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
}

function serialDate(serial: number): Date {
  return new Date(Math.round(serial * MS_PER_DAY + EXCEL_EPOCH_MS));
}

function plainText(value: unknown, numFmt: string | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return isDateFormat(numFmt) ? dateText(serialDate(value)) : numberText(value);
  // Excel's CSV export writes TRUE and FALSE.
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : dateText(value);
  return '';
}

/**
 * The text of a cell: a formula gives its cached result (none cached: empty, as the reader has
 * nothing to show), rich text its characters, a hyperlink its text, an error cell its code.
 */
export function cellText({ value, numFmt }: SheetCell): string {
  if (value === null || typeof value !== 'object' || value instanceof Date) return plainText(value, numFmt);
  const object = value as {
    formula?: unknown;
    sharedFormula?: unknown;
    result?: unknown;
    richText?: { text?: string }[];
    text?: unknown;
    error?: unknown;
  };
  if ('formula' in object || 'sharedFormula' in object) {
    // The reader parses a cached error (#N/A) as a number: NaN, which has no text.
    return typeof object.result === 'number' && Number.isNaN(object.result) ? '' : plainText(object.result, numFmt);
  }
  if (Array.isArray(object.richText)) return object.richText.map((run) => run.text ?? '').join('');
  if (typeof object.error === 'string') return object.error;
  return plainText(object.text, numFmt);
}
