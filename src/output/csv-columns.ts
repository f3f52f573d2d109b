import { findEndpoint, INFO_SCHEMAS, LEVEL_SPECS, type Level, type Schema } from '../catalog/index.js';

/**
 * Where a column's cell comes from: an input column, one of the record's own fields, or a path
 * into the chunk. Declared as data so that the line renderer can walk shared path prefixes once
 * per record rather than once per cell.
 */
export type CellSource =
  | { from: 'input'; name: string }
  | { from: 'record'; field: 'row' | 'status' | 'error' }
  | { from: 'chunk'; path: readonly string[]; orElse?: readonly string[] };

export interface CsvColumn {
  header: string;
  source: CellSource;
}

export interface CsvShape {
  inputColumns: readonly string[];
  level: Level;
  /** Chunk member keys of the sections (`property/value`, or each mget component). */
  sections: readonly string[];
  /** Whether items carry meta: the echoed value then gets a `_meta` column. */
  withMeta: boolean;
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

function chunkColumn(member: string, path: readonly string[], headerPath: readonly string[]): CsvColumn {
  return { header: [member, ...headerPath].join('.'), source: { from: 'chunk', path: [member, ...path] } };
}

/**
 * A field the spec spells two ways: the field table says `lon`, the example payloads and the
 * service `lng`. The column is named as the catalog names it and takes whichever arrives.
 */
const OTHER_SPELLING: Readonly<Record<string, string>> = { lng: 'lon' };

function infoColumn(member: string, path: readonly string[]): CsvColumn {
  const column = chunkColumn(member, path, path);
  const other = OTHER_SPELLING[path[path.length - 1]!];
  if (other === undefined || column.source.from !== 'chunk') return column;
  return { ...column, source: { ...column.source, orElse: [member, ...path.slice(0, -1), other] } };
}

/** `<endpoint>.api_code`, then the result's fields by dotted path (a non-object result is `.result`). */
function sectionColumns(key: string): CsvColumn[] {
  const result = findEndpoint(key)?.result;
  const apiCode = chunkColumn(key, ['api_code'], ['api_code']);
  if (!result || result.type !== 'object' || Object.keys(result.fields).length === 0) {
    return [apiCode, chunkColumn(key, ['result'], ['result'])];
  }
  return [apiCode, ...leafPaths(result, []).map((path) => chunkColumn(key, ['result', ...path], path))];
}

/**
 * The CSV header, fixed before the first record from the input header and the catalog's result
 * schemas, never from a response: every input column verbatim (renamed where an output column
 * has its name: inputColumns), `_row`, `_status`, `_error`,
 * `_meta` (when items carry meta), the level's info member, then each section.
 */
export function csvColumns(shape: CsvShape): CsvColumn[] {
  const output = outputColumns(shape);
  return [...inputColumns(shape.inputColumns, new Set(output.map((column) => column.header))), ...output];
}

/**
 * The input columns' headers: verbatim, except one that an output column also names (`_row`,
 * `_status`, `address_info.lat`: an earlier run's output given as input) is prefixed `input.`,
 * again until the name is free (`input.input._row` for a third run in a chain). The cells are the
 * input's, unchanged; the header never names a column twice.
 */
function inputColumns(names: readonly string[], taken: ReadonlySet<string>): CsvColumn[] {
  const used = new Set([...taken, ...names]);
  return names.map((name) => {
    let header = name;
    if (taken.has(name)) {
      while (used.has(header)) header = `input.${header}`;
      used.add(header);
    }
    return { header, source: { from: 'input', name } };
  });
}

/** `_row`, `_status`, `_error`, `_meta` (when items carry meta), the level's info member, then each section. */
function outputColumns(shape: CsvShape): CsvColumn[] {
  const columns: CsvColumn[] = [];
  columns.push(
    { header: '_row', source: { from: 'record', field: 'row' } },
    { header: '_status', source: { from: 'record', field: 'status' } },
    { header: '_error', source: { from: 'record', field: 'error' } },
  );
  if (shape.withMeta) columns.push({ header: '_meta', source: { from: 'chunk', path: ['meta'] } });
  const info = LEVEL_SPECS[shape.level].infoMember;
  if (info) columns.push(...leafPaths(INFO_SCHEMAS[info], []).map((path) => infoColumn(info, path)));
  for (const key of shape.sections) columns.push(...sectionColumns(key));
  return columns;
}
