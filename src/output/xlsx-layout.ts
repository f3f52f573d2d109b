import { LEVEL_SPECS } from '../catalog/index.js';
import { csvColumns, type CsvColumn, type CsvShape } from './csv-columns.js';
import { shortColumns } from './short-names.js';

/** `--sheets`: every column on one sheet (the CSV output's), or one sheet per endpoint. */
export type SheetsLayout = 'records' | 'endpoint';

export interface SheetPlan {
  name: string;
  columns: readonly CsvColumn[];
}

/** Excel refuses these in a sheet name, and names longer than 31 characters. */
const FORBIDDEN = /[[\]:*?/\\]/g;
export const MAX_SHEET_NAME = 31;

function sheetName(name: string): string {
  return name.replace(FORBIDDEN, '_').slice(0, MAX_SHEET_NAME);
}

/** The record's own columns beyond the key: status, error and meta go with the item's info. */
const isKey = (column: CsvColumn) => column.source.from === 'input' || (column.source.from === 'record' && column.source.field === 'row');

/** The chunk member a column reads, or undefined for the record's own columns. */
const memberOf = (column: CsvColumn) => (column.source.from === 'chunk' ? column.source.path[0] : undefined);

/**
 * The sheets of a workbook. One sheet holds the CSV output's columns, in the same order. By
 * endpoint, as the service's exporter lays it out: every sheet starts with the input columns and
 * `_row`, which key its rows to the other sheets'; the first sheet (named after the info member,
 * `address_info`) has the status, error, meta and the item's info, then each endpoint has its
 * own sheet named after its target (`value`, `rental_value`) with its api_code and result.
 * `shortNames` names the columns in words (short-names.ts) instead of by dotted path.
 */
export function sheetPlans(shape: CsvShape, layout: SheetsLayout, shortNames = false): SheetPlan[] {
  const named = (columns: readonly CsvColumn[], section?: string) => (shortNames ? shortColumns(columns, section) : columns);
  const columns = csvColumns(shape);
  if (layout === 'records') return [{ name: 'records', columns: named(columns) }];
  const keys = columns.filter(isKey);
  const sections = new Set(shape.sections);
  const first = columns.filter((column) => !isKey(column) && !sections.has(memberOf(column) ?? ''));
  const info = LEVEL_SPECS[shape.level].infoMember;
  return [
    { name: info ?? 'records', columns: named([...keys, ...first]) },
    ...shape.sections.map((section) => ({
      name: sheetName(section.slice(section.indexOf('/') + 1)),
      columns: named([...keys, ...columns.filter((column) => memberOf(column) === section)], section),
    })),
  ];
}
