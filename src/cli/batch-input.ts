import type { Io } from './io.js';
import { sectionKeys, type QueryTarget } from '../model/query-target.js';
import type { BatchOptions } from './commands/query-options.js';
import { openInput } from '../input/open-input.js';
import { checkColumnOptions, checkHeaderFeedsIdentifiers } from '../input/column-options.js';
import { delimiterNote } from '../input/delimiter.js';
import { createPreparer } from '../input/prepare.js';
import type { InputRow, PreparedItem } from '../input/row.js';
import type { IdentifierRepairs } from '../input/xlsx-identifiers.js';

// What a batch and its estimate read of the input alike: its rows ready to become items, its
// columns, and the shape of the records they make.

export interface Prepared {
  rows: AsyncIterable<InputRow>;
  prepare: (row: InputRow) => PreparedItem;
  inputColumns: string[];
  /** A regular file: it may be read again (a row count, the resume identity); a pipe is read once. */
  seekable: boolean;
  metaColumn: string | undefined;
  format: 'csv' | 'jsonl' | 'xlsx';
  repairs?: IdentifierRepairs | undefined;
  /** Identifiers a spreadsheet had stripped of a leading zero, padded back (rows, first few). */
  padded: { count: number; firstRows: number[] };
}

export async function prepareInput(target: QueryTarget, options: BatchOptions, params: Record<string, string>, io: Io): Promise<Prepared> {
  const input = await openInput({
    path: options.input,
    format: options.inputFormat,
    stdin: io.stdin,
    sheet: options.sheet,
    delimiter: options.delimiter,
    encoding: options.encoding,
    identifiers: { level: target.level, endpoints: target.paramEndpoints, map: options.map ?? {}, metaColumn: options.metaColumn },
  });
  if (input.delimiter !== undefined && !options.quiet) io.stderr.write(`propdata: ${delimiterNote(input.delimiter)}\n`);
  if (input.decodedAs !== undefined && !options.quiet) {
    io.stderr.write(
      `propdata: ${options.input} is not UTF-8: reading it as ${input.decodedAs}, as Excel saves a CSV (--encoding chooses another)\n`,
    );
  }
  const inputColumns = await input.columns;
  checkColumnOptions(inputColumns, options.map ?? {}, options.metaColumn);
  if (input.format !== 'jsonl' && !target.openKeys) {
    checkHeaderFeedsIdentifiers(inputColumns, {
      level: target.level,
      params: new Map(),
      map: options.map ?? {},
      metaColumn: options.metaColumn,
    });
  }
  const metaColumn = options.metaColumn ?? inputColumns.find((column: string) => column.toLowerCase() === 'meta');
  const padded = { count: 0, firstRows: [] as number[] };
  const prepare = createPreparer({
    onRepair: (row) => {
      padded.count += 1;
      if (padded.firstRows.length < 5) padded.firstRows.push(row);
    },
    level: target.level,
    endpoints: target.paramEndpoints,
    fixedParams: params,
    map: options.map ?? {},
    ...(metaColumn ? { metaColumn } : {}),
    ...(target.openKeys ? { openKeys: true } : {}),
  });
  return {
    rows: input.rows,
    prepare,
    inputColumns,
    metaColumn,
    format: input.format,
    seekable: input.seekable,
    repairs: input.repairs,
    padded,
  };
}

/** Everything that shapes the records (endpoint, parameters, columns...): a resume and a job need it unchanged. */
export function recordShapeOf(
  target: QueryTarget,
  options: BatchOptions,
  params: Record<string, string>,
  columns: readonly string[],
  metaColumn: string | undefined,
) {
  return {
    path: target.path,
    query: target.query,
    sections: sectionKeys(target),
    params,
    map: options.map ?? {},
    metaColumn: metaColumn ?? null,
    columns,
    excel: Boolean(options.excel),
    ...(options.sheet !== undefined ? { sheet: options.sheet } : {}),
  };
}
