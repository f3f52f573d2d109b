import { findEndpoint, INFO_SCHEMAS, LEVEL_SPECS, type Level, type Schema } from '../catalog/index.js';
import type { CsvColumn } from './csv-columns.js';
import { DOLLARS, ISO_DATE_FORMAT } from './xlsx-number-formats.js';

/**
 * What a column's cells are in a workbook. Decided per column, before the first record, from the
 * catalog's result shapes, never from a response: a cell of a `digits` field is text even when a
 * response sends a number, so a ZIP never loses its leading zero and a block id never turns into
 * 2.40054E+14. Input columns have no shape: they are decided from the first rows (xlsx-input-kinds).
 */
export type CellKind =
  | { type: 'text' }
  | { type: 'digits'; length: number }
  | { type: 'number' }
  /** Dollars (the catalog's `unit: 'usd'`): a number shown with thousands separators, with cents when the field has them. */
  | { type: 'money'; cents: boolean }
  | { type: 'boolean' }
  | { type: 'date' }
  /** Lists and free-form objects: one cell of JSON text, as in the CSV output. */
  | { type: 'json' }
  /** A result the catalog does not describe (`propdata call`): numbers stay numbers, objects are JSON text. */
  | { type: 'any' }
  | { type: 'input' };

const TEXT: CellKind = { type: 'text' };
const NUMBER: CellKind = { type: 'number' };
const ANY: CellKind = { type: 'any' };

/** The schema at a path inside a schema, or undefined where the catalog says nothing. */
function schemaAt(schema: Schema | undefined, path: readonly string[]): Schema | undefined {
  let at = schema;
  for (const name of path) at = at?.type === 'object' ? at.fields[name] : undefined;
  return at;
}

function kindOfSchema(schema: Schema | undefined): CellKind {
  if (schema === undefined) return ANY;
  switch (schema.type) {
    case 'string':
      if (schema.format === 'date') return { type: 'date' };
      return schema.format === 'digits' && schema.length !== undefined ? { type: 'digits', length: schema.length } : TEXT;
    case 'int':
    case 'float':
      return schema.unit === 'usd' ? { type: 'money', cents: schema.type === 'float' } : NUMBER;
    case 'boolean':
      return { type: 'boolean' };
    case 'object':
    case 'list':
      return { type: 'json' };
  }
}

/** The kind of each column, in column order. */
export function cellKinds(columns: readonly CsvColumn[], level: Level): CellKind[] {
  const info = LEVEL_SPECS[level].infoMember;
  return columns.map(({ source }): CellKind => {
    if (source.from === 'input') return { type: 'input' };
    if (source.from === 'record') return source.field === 'row' ? NUMBER : TEXT;
    const [member, ...rest] = source.path;
    if (member === 'meta') return TEXT;
    if (info !== undefined && member === info) return kindOfSchema(schemaAt(INFO_SCHEMAS[info], rest));
    const [part, ...path] = rest;
    if (part === 'api_code') return NUMBER;
    const endpoint = findEndpoint(member!);
    return endpoint ? kindOfSchema(schemaAt(endpoint.result, path)) : ANY;
  });
}

/** The number format of a column's cells, from its kind: ISO dates, dollars with thousands separators. */
export function numberFormat(kind: CellKind): string | undefined {
  if (kind.type === 'date') return ISO_DATE_FORMAT;
  return kind.type === 'money' ? (kind.cents ? DOLLARS.cents : DOLLARS.whole) : undefined;
}
