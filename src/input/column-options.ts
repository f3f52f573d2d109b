import { LEVEL_SPECS } from '../catalog/index.js';
import { InputError, UsageError } from '../errors/index.js';
import { createColumnResolver, listColumns, normalizeName, type ColumnSettings } from './columns.js';

/**
 * `--map COLUMN=...` and `--meta-column COLUMN` must name columns the input has: a misspelt one
 * would otherwise be ignored and the run would go on without the identifier or meta it was meant
 * to feed. Names compare as the column resolver compares them (`Zip Code` is `zip_code`). Call
 * once the input's columns are known (for JSONL from a pipe: the first object's keys).
 */
export function checkColumnOptions(
  columns: readonly string[],
  map: Readonly<Record<string, string>>,
  metaColumn: string | undefined,
): void {
  const present = new Set(columns.map(normalizeName));
  const absent = (column: string) => !present.has(normalizeName(column));
  const refuse = (option: string, column: string, code: string) =>
    new UsageError(`${option}: the input has no column "${column}" (its columns: ${listColumns(columns)}); name one of them`, code);
  for (const [column, target] of Object.entries(map)) {
    if (absent(column)) throw refuse(`--map ${column}=${target}`, column, 'E_USAGE_MAP');
  }
  if (metaColumn !== undefined && absent(metaColumn)) throw refuse(`--meta-column ${metaColumn}`, metaColumn, 'E_USAGE_META_COLUMN');
}

/**
 * A CSV or workbook whose header names no identifier the level takes (`address`, `slug`,
 * `block_id`... or an alias or a --map) would fail every row alike: most often a file with no
 * header row, whose first line of data was taken for one. One message up front instead, quoting
 * that line. `settings`: as the column resolver's.
 */
export function checkHeaderFeedsIdentifiers(columns: readonly string[], settings: ColumnSettings): void {
  const identifiers = LEVEL_SPECS[settings.level].identifiers;
  if (identifiers.length === 0) return;
  const plan = createColumnResolver(settings)(columns);
  if (plan.assigned.some(({ target }) => target.kind === 'identifier')) return;
  const looksLikeData = columns.some((column) => /\d/.test(column) && /\s/.test(column.trim()));
  throw new InputError(
    'E_INPUT_NO_IDENTIFIER_COLUMN',
    `the header row (line 1: ${listColumns(columns)}) names no column a ${settings.level} item is identified by ` +
      `(${identifiers.map((identifier) => identifier.name).join(', ')}), so every row would fail` +
      (looksLikeData
        ? '; it looks like data: the input seems to have no header row. Add one (e.g. address,city,state,zipcode)'
        : '; rename a column') +
      ', or name the column with --map COLUMN=IDENTIFIER',
  );
}
