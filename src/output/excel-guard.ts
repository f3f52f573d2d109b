/**
 * Spreadsheets run a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a
 * formula (CSV injection), and some normalize the full-width `＝＋－＠` to those first. `--excel`
 * puts a `'` in front of such cells, which spreadsheets show as text. A plain number (`-12.5`,
 * `+1`) is data, not a formula, and is left alone (csv-stringify's own escape_formulas would quote
 * it: it cannot tell a number from text that is one).
 *
 * It does not keep zeros: a spreadsheet opening the CSV reads 06040 as the number 6040 whatever
 * we write (a `'` or `="06040"` would change the data for every other reader). xlsx output, where
 * identifiers are text cells, is the way to a spreadsheet; the help and docs/spreadsheets.md say so.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

/** The UTF-8 byte order mark: Excel reads a CSV as UTF-8 only when it starts with one. */
export const UTF8_BOM = '\ufeff';
