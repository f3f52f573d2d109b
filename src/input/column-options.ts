import { UsageError } from '../errors/index.js';
import { listColumns, normaliseName } from './columns.js';

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
  const present = new Set(columns.map(normaliseName));
  const absent = (column: string) => !present.has(normaliseName(column));
  const refuse = (option: string, column: string, code: string) =>
    new UsageError(`${option}: the input has no column "${column}" (its columns: ${listColumns(columns)}); name one of them`, code);
  for (const [column, target] of Object.entries(map)) {
    if (absent(column)) throw refuse(`--map ${column}=${target}`, column, 'E_USAGE_MAP');
  }
  if (metaColumn !== undefined && absent(metaColumn)) throw refuse(`--meta-column ${metaColumn}`, metaColumn, 'E_USAGE_META_COLUMN');
}
