import { InputError } from '../errors/index.js';

/** Where a header sits, in the words of its format: `line 1`, `sheet row 3`; and how it labels a column (`2`, `B`). */
export interface HeaderPlace {
  /** The error's stable code: E_CSV_DUPLICATE_COLUMN, E_XLSX_DUPLICATE_COLUMN. */
  code: string;
  where: string;
  line: number;
  columnLabel: (index: number) => string;
}

/**
 * A header row's cells as column names, one rule for every format with a header row: an empty
 * cell (a trailing comma, a column a spreadsheet left unnamed, the index pandas' `to_csv` writes
 * with an empty header) gets the name pandas reads it by, `Unnamed: N` (N from 0), so that the
 * output read back with pandas has the columns its input had; and a name given twice is fatal. Columns must round-trip to the output by name,
 * and a record cannot hold two values under one name: a duplicate is refused rather than
 * silently renamed or dropped.
 */
export function headerNames(cells: readonly string[], place: HeaderPlace): string[] {
  const names = cells.map((name, i) => (name.trim() === '' ? `Unnamed: ${i}` : name));
  const seen = new Map<string, number>();
  names.forEach((name, i) => {
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      throw new InputError(
        place.code,
        `${place.where}: the header names column "${name}" twice (columns ${place.columnLabel(earlier)} and ${place.columnLabel(i)}); ` +
          'rename one so every column has its own name',
        { line: place.line },
      );
    }
    seen.set(name, i);
  });
  return names;
}
