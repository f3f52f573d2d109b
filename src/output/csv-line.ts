import { Stringifier } from 'csv-stringify';
import type { CsvColumn } from './csv-columns.js';
import { neutraliseFormula } from './excel-guard.js';
import type { OutputRecord } from '../model/record.js';

/** null and absent are empty; booleans `true`/`false`; lists and free-form objects JSON text. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The value at a path into the chunk; undefined where the path leaves the objects. */
function valueAt(chunk: unknown, path: readonly string[]): unknown {
  let value = chunk;
  for (const segment of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  return value;
}

/** csv-stringify's record-to-text step, without its stream: a record is rendered and written whole by the caller. */
interface LineApi {
  stringify(cells: readonly unknown[]): [Error | undefined, string | undefined];
}

/**
 * csv-stringify set up once (RFC 4180 quoting: quotes doubled inside, empty cells bare, `\n`
 * between records). Text cells pass the formula guard with --excel; numbers never do (a number is
 * data). Booleans are `true`/`false`, not csv-stringify's default `1`/empty.
 */
function lineApi(excel: boolean): (cells: readonly unknown[]) => string {
  const stringifier = new Stringifier({
    record_delimiter: '\n',
    cast: {
      boolean: (value) => String(value),
      object: (value) => JSON.stringify(value),
      ...(excel ? { string: neutraliseFormula } : {}),
    },
  });
  const api = (stringifier as unknown as { api: LineApi }).api;
  return (cells) => {
    const [error, line] = api.stringify(cells);
    if (error) throw error;
    return `${line ?? ''}\n`;
  };
}

/** One CSV line, `\n`-terminated: the header. */
export function csvLine(cells: readonly string[], excel: boolean): string {
  return lineApi(excel)(cells);
}

/**
 * Renders a record as one CSV line. The cells are taken without building intermediate objects:
 * chunk columns come in schema order, so each one walks only the part of its path that differs
 * from the column before it (`address_info.status.match`, then `.details`...).
 */
export function csvLineRenderer(columns: readonly CsvColumn[], excel: boolean): (record: OutputRecord) => string {
  const line = lineApi(excel);
  let previous: readonly string[] = [];
  const steps = columns.map(({ source }) => {
    if (source.from !== 'chunk') return source;
    const { path } = source;
    let shared = 0;
    while (shared < path.length - 1 && previous[shared] === path[shared]) shared += 1;
    previous = path;
    return { ...source, shared };
  });
  // at[d]: the value reached after the first d segments of the chunk path walked last; at[0] is
  // the chunk. Reused across records: rendering is synchronous.
  const at: unknown[] = [];
  const cells: unknown[] = new Array<unknown>(steps.length);
  return (record) => {
    at[0] = record.chunk;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (step.from === 'chunk') {
        const { path } = step;
        let value = at[step.shared];
        for (let d = step.shared; d < path.length; d++) {
          value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[path[d]!] : undefined;
          at[d + 1] = value;
        }
        cells[i] = value === undefined && step.orElse ? valueAt(record.chunk, step.orElse) : value;
      } else if (step.from === 'input') {
        cells[i] = cellText(record.input[step.name]);
      } else {
        cells[i] = step.field === 'row' ? String(record.row) : step.field === 'status' ? record.status : (record.error ?? '');
      }
    }
    return line(cells);
  };
}
