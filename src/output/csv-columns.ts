import { findEndpoint, INFO_SCHEMAS, LEVEL_SPECS, type Level, type Schema } from '../catalog/index.js';
import type { OutputRecord } from './record.js';

/** One CSV column: its header and where its cell comes from in a record. */
export interface CsvColumn {
  header: string;
  cell: (record: OutputRecord) => string;
}

export interface CsvShape {
  inputColumns: readonly string[];
  level: Level;
  /** Chunk member keys of the sections (`property/value`, or each mget component). */
  sections: readonly string[];
  /** Whether items carry meta: the echoed value then gets a `_meta` column. */
  withMeta: boolean;
}

/** null and absent are empty; booleans `true`/`false`; lists and free-form objects JSON text. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * The dotted paths of a schema's cells: objects with declared fields are opened up, everything
 * else (scalars, lists, free-form objects) is one cell. A list is one JSON cell, not columns per
 * element: the header has to be known before the first answer arrives.
 */
function leafPaths(schema: Schema, prefix: readonly string[]): string[][] {
  if (schema.type !== 'object' || Object.keys(schema.fields).length === 0) return [[...prefix]];
  return Object.entries(schema.fields).flatMap(([name, field]) => leafPaths(field, [...prefix, name]));
}

function chunkColumns(member: string, path: readonly string[], headerPath: readonly string[]): CsvColumn {
  const full = [member, ...path];
  return { header: [member, ...headerPath].join('.'), cell: (record) => cellText(valueAt(record.chunk, full)) };
}

/** `<endpoint>.api_code`, then the result's fields by dotted path (a non-object result is `.result`). */
function sectionColumns(key: string): CsvColumn[] {
  const result = findEndpoint(key)?.result;
  const apiCode = chunkColumns(key, ['api_code'], ['api_code']);
  if (!result || result.type !== 'object' || Object.keys(result.fields).length === 0) {
    return [apiCode, chunkColumns(key, ['result'], ['result'])];
  }
  return [apiCode, ...leafPaths(result, []).map((path) => chunkColumns(key, ['result', ...path], path))];
}

/**
 * The CSV header, fixed before the first record from the input header and the catalog's result
 * schemas, never from a response: every input column verbatim, `_row`, `_status`, `_error`,
 * `_meta` (when items carry meta), the level's info member, then each section.
 */
export function csvColumns(shape: CsvShape): CsvColumn[] {
  const columns: CsvColumn[] = shape.inputColumns.map((name) => ({ header: name, cell: (record) => cellText(record.input[name]) }));
  columns.push(
    { header: '_row', cell: (record) => String(record.row) },
    { header: '_status', cell: (record) => record.status },
    { header: '_error', cell: (record) => record.error ?? '' },
  );
  if (shape.withMeta) columns.push({ header: '_meta', cell: (record) => cellText(record.chunk?.meta) });
  const info = LEVEL_SPECS[shape.level].infoMember;
  if (info) columns.push(...leafPaths(INFO_SCHEMAS[info], []).map((path) => chunkColumns(info, path, path)));
  for (const key of shape.sections) columns.push(...sectionColumns(key));
  return columns;
}
