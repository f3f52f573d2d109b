import { IDENTIFIER_ALIASES, normalizeName } from '../input/columns.js';
import { isoDate, textCell, type CellValue } from './xlsx-cell-value.js';

/**
 * What an input column's cells are. The input has no schema, so a column is a number, date or
 * boolean column only when every value of its first rows is one; a single cell is never guessed
 * on its own. Identifier columns are always text, whatever their first rows hold.
 */
export type InputKind = 'text' | 'number' | 'date' | 'boolean';

/**
 * Names (normalized) of columns that hold identifiers: the catalog's digit identifiers and their
 * aliases, and the other codes the service returns. A number would drop their leading zeros
 * (02134) or their last digits (a 16-digit APN).
 */
const IDENTIFIER_NAMES: ReadonlySet<string> = new Set([
  ...['zipcode', 'block_id', 'blockgroup_id', 'msa', 'metrodiv'].flatMap((name) => [name, ...(IDENTIFIER_ALIASES[name] ?? [])]),
  ...['zipcode_plus4', 'plus4', 'county_fips', 'fips', 'apn', 'slug', 'tract'],
]);

/** A plain decimal a spreadsheet keeps exactly: no leading zero, at most 15 significant digits. */
const PLAIN_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const MAX_EXACT_DIGITS = 15;
const BOOLEAN = /^(true|false)$/i;

function isPlainNumber(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'string' || !PLAIN_NUMBER.test(value)) return false;
  return value.replace(/[-.]/g, '').replace(/^0+/, '').length <= MAX_EXACT_DIGITS;
}

const isDate = (value: unknown) => typeof value === 'string' && isoDate(value) !== undefined;
const isBoolean = (value: unknown) => typeof value === 'boolean' || (typeof value === 'string' && BOOLEAN.test(value));
const isEmpty = (value: unknown) => value === null || value === undefined || (typeof value === 'string' && value.trim() === '');

/** The kind of one input column, from its values in the first rows. */
export function inputKind(column: string, samples: readonly unknown[]): InputKind {
  if (IDENTIFIER_NAMES.has(normalizeName(column))) return 'text';
  const values = samples.filter((value) => !isEmpty(value));
  if (values.length === 0) return 'text';
  if (values.every(isPlainNumber)) return 'number';
  if (values.every(isDate)) return 'date';
  return values.every(isBoolean) ? 'boolean' : 'text';
}

/** One input cell. A later value that does not fit its column's kind (a ZIP+4 in a number column) stays text. */
export function inputCell(kind: InputKind, value: unknown): CellValue {
  if (isEmpty(value)) return null;
  switch (kind) {
    case 'number':
      if (isPlainNumber(value)) return Number(value);
      break;
    case 'date':
      if (isDate(value)) return isoDate(value as string)!;
      break;
    case 'boolean':
      if (isBoolean(value)) return typeof value === 'boolean' ? value : (value as string).toLowerCase() === 'true';
      break;
    case 'text':
      break;
  }
  return textCell(value);
}
