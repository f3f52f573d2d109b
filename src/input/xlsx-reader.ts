import type { Identifier } from '../catalog/index.js';
import { headerNames } from './header-names.js';
import { emptyInput, quietly, type InputSource } from './input-source.js';
import { emptyColumns, type InputRow } from './row.js';
import { cellText, type SheetCell } from './xlsx-cell-text.js';
import { identifierColumns, IdentifierRepairs, identifierText, type IdentifierSettings } from './xlsx-identifiers.js';
import type { ReadProgress } from './read-progress.js';
import { sheetRows, type SheetRow } from './xlsx-sheet-rows.js';

export interface XlsxReadOptions {
  /** `--sheet NAME|N`; default the first sheet. */
  sheet?: string | undefined;
  /** How columns feed identifiers: a number in one of those columns is made text again. */
  identifiers?: IdentifierSettings | undefined;
  /** Counted as the sheet is read, for the progress bar. */
  progress?: ReadProgress | undefined;
}

/** Cells by column number (from 1), with their text once worked out. */
type Cells = ({ cell: SheetCell; text: string } | undefined)[];

function cellsOf(row: SheetRow): Cells {
  return row.cells.map((cell) => (cell === undefined ? undefined : { cell, text: cellText(cell) }));
}

const isBlank = (cells: Cells) => cells.every((each) => each === undefined || each.text.trim() === '');

/** `A`, `B`, ... `AA`: a column as the spreadsheet labels it. */
function columnLetter(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

/** The header row's cells up to its last non-empty one, named by the rule every format shares. */
function headerOf(cells: Cells, line: number): string[] {
  let width = cells.length - 1;
  while (width > 0 && (cells[width]?.text.trim() ?? '') === '') width -= 1;
  const texts = Array.from({ length: width }, (_, i) => cells[i + 1]?.text ?? '');
  return headerNames(texts, { code: 'E_XLSX_DUPLICATE_COLUMN', where: `sheet row ${line}`, line, columnLabel: (i) => columnLetter(i + 1) });
}

/** A cell's number (a formula's cell holds its cached one), unless its style shows it as a date. */
function numberOf(cell: SheetCell): number | undefined {
  return cell.kind === 'number' && !cell.date && Number.isFinite(cell.value) ? cell.value : undefined;
}

/**
 * An .xlsx input, streamed: the first non-blank row of the sheet is the header, as for CSV, and
 * every later non-blank row is a record (`_row` counts them; `line` is the sheet's row number).
 * Every cell becomes the text a CSV export would hold (a formula its cached result, a date an ISO
 * date), except that a number in an identifier column becomes its identifier again (2134 → 02134),
 * counted in `repairs`. A value beyond the header's columns makes its row invalid.
 */
export function readXlsx(path: string, options: XlsxReadOptions = {}): InputSource & { repairs: IdentifierRepairs } {
  const repairs = new IdentifierRepairs();
  const { progress } = options;
  const sheet = sheetRows(path, options.sheet, progress);
  let identifiers = new Map<string, Identifier>();
  const columns = quietly(
    (async () => {
      for (let next = await sheet.next(); !next.done; next = await sheet.next()) {
        const cells = cellsOf(next.value);
        if (isBlank(cells)) continue;
        const header = headerOf(cells, next.value.number);
        if (options.identifiers) identifiers = identifierColumns(header, options.identifiers);
        return header;
      }
      throw emptyInput('a header row');
    })(),
  );

  function toRow(header: readonly string[], cells: Cells, row: number, line: number): InputRow {
    // Any header is a column, `__proto__` included (as for CSV).
    const values = emptyColumns();
    header.forEach((name, i) => {
      const each = cells[i + 1];
      const identifier = identifiers.get(name);
      const number = each && identifier ? numberOf(each.cell) : undefined;
      values[name] =
        number === undefined
          ? (each?.text ?? '')
          : identifierText(number, identifier!, (text) => repairs.record(row, identifier!, number, text));
    });
    const beyond = cells.findIndex((each, column) => column > header.length && each !== undefined && each.text.trim() !== '');
    if (beyond === -1) return { row, line, columns: values };
    const readError = `column ${columnLetter(beyond)} holds "${cells[beyond]!.text}" but has no header; give the column a header or clear the cell`;
    return { row, line, columns: values, readError };
  }

  async function* rows(): AsyncGenerator<InputRow> {
    const header = await columns;
    let row = 0;
    for await (const sheetRow of { [Symbol.asyncIterator]: () => sheet }) {
      const cells = cellsOf(sheetRow);
      if (isBlank(cells)) continue;
      row += 1;
      if (progress) progress.rowsRead = row;
      yield toRow(header, cells, row, sheetRow.number);
    }
    if (progress) progress.done = true;
  }
  return { columns, rows: rows(), repairs };
}
