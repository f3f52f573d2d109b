/**
 * Spreadsheets run a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a
 * formula (CSV injection). `--excel` puts a `'` in front of such cells, which spreadsheets show
 * as text. A plain number (`-12.5`, `+1`) is data, not a formula, and is left alone.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

/** The UTF-8 byte order mark: Excel reads a CSV as UTF-8 only when it starts with one. */
export const UTF8_BOM = '\ufeff';
