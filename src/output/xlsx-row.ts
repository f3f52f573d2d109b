import type { OutputRecord } from '../model/record.js';
import type { CsvColumn } from './csv-columns.js';
import type { CellKind } from './xlsx-cell-kinds.js';
import { cellValue, type CellValue } from './xlsx-cell-value.js';
import { inputCell, type InputKind } from './xlsx-input-kinds.js';

function valueAt(chunk: unknown, path: readonly string[]): unknown {
  let value = chunk;
  for (const name of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
  return value;
}

/** Renders a record as one row of cells, the columns' kinds decided (input columns' from the first rows). */
export function rowRenderer(
  columns: readonly CsvColumn[],
  kinds: readonly CellKind[],
  inputKinds: ReadonlyMap<string, InputKind>,
): (record: OutputRecord) => CellValue[] {
  const cells = columns.map(({ source }, i): ((record: OutputRecord) => CellValue) => {
    switch (source.from) {
      case 'input': {
        const kind = inputKinds.get(source.name) ?? 'text';
        return (record) => inputCell(kind, record.input[source.name]);
      }
      case 'record':
        if (source.field === 'row') return (record) => record.row;
        return source.field === 'status' ? (record) => record.status : (record) => record.error ?? null;
      case 'chunk': {
        const kind = kinds[i]!;
        const { path, orElse } = source;
        return (record) => cellValue(kind, valueAt(record.chunk, orElse && valueAt(record.chunk, path) === undefined ? orElse : path));
      }
    }
  });
  return (record) => cells.map((cell) => cell(record));
}
