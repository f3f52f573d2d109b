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

/**
 * A cell needs quotes when it holds the delimiter, a quote or a line break: a carriage return
 * too, alone or not (RFC 4180), since readers (propdata's own, spreadsheets) end a record at one.
 * csv-stringify with `record_delimiter: '\n'` left a lone one bare, and such a row read back split.
 */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * RFC 4180 quoting, as csv-stringify writes it with `record_delimiter: '\n'` (but for a lone
 * carriage return): quotes doubled inside, empty cells bare. Encoded here rather than through csv-stringify's
 * record API, whose casts and options per cell made a line of the benchmark's cost 11 to 14 µs
 * (written out); 8 to 9 µs this way.
 */
function quoted(cell: string): string {
  if (!NEEDS_QUOTES.test(cell)) return cell;
  // replaceAll copies the cell even when it has no quote to double (an address with a comma).
  return cell.includes('"') ? `"${cell.replaceAll('"', '""')}"` : `"${cell}"`;
}

const asIs = (cell: string) => cell;

/** A string JSON writes as it is between its quotes: nothing in it to escape. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const JSON_PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A scalar as it is in a quoted cell's JSON text (quotes doubled), or undefined when it is not a plain one. */
function quotedScalar(value: unknown): string | undefined {
  if (typeof value === 'string') return JSON_PLAIN.test(value) ? `""${value}""` : undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return String(value);
  return value === null ? 'null' : undefined;
}

/** A list of scalars, or an object of them under plain names, as its quoted cell; undefined for any other. */
function quotedFlat(value: object): string | undefined {
  const list = Array.isArray(value);
  const names = list ? undefined : Object.keys(value);
  const count = names ? names.length : (value as unknown[]).length;
  // Quoted for certain only when it holds a quote (a name, a string) or a comma: else quoted() decides.
  if (names ? count === 0 : count === 0 || (count === 1 && typeof (value as unknown[])[0] !== 'string')) return undefined;
  let text = '';
  for (let i = 0; i < count; i++) {
    const name = names?.[i];
    if (name !== undefined && !JSON_PLAIN.test(name)) return undefined;
    const scalar = quotedScalar(name === undefined ? (value as unknown[])[i] : (value as Record<string, unknown>)[name]);
    if (scalar === undefined) return undefined;
    text += `${i === 0 ? '' : ','}${name === undefined ? '' : `""${name}"":`}${scalar}`;
  }
  return list ? `"[${text}]"` : `"{${text}}"`;
}

/**
 * A list or an object as its cell: its JSON text, quoted (quoted(JSON.stringify(value))). A flat
 * one of plain scalars, as an answer's lists and echoed items are, is written quoted at once:
 * JSON text with every quote then doubled made three strings, a line's largest garbage.
 */
function jsonCell(value: object): string {
  return quotedFlat(value) ?? quoted(JSON.stringify(value));
}

/** One CSV line, `\n`-terminated: the header. Text cells pass the formula guard with --excel. */
export function csvLine(cells: readonly string[], excel: boolean): string {
  const guard = excel ? neutraliseFormula : asIs;
  return `${cells.map((cell) => quoted(guard(cell))).join(',')}\n`;
}

/**
 * A column as the renderer walks it. Every kind has the same members, so that V8 reads them from
 * one layout: with a layout per kind, a line took 10% longer.
 */
interface Step {
  from: CsvColumn['source']['from'];
  /** The input column's name, for `input`. */
  name: string;
  /** The record's field, for `record`. */
  field: 'row' | 'status' | 'error' | undefined;
  /** The path into the chunk, and how much of it the column before this one walked (`chunk`). */
  path: readonly string[];
  shared: number;
  orElse: readonly string[] | undefined;
}

/**
 * Renders a record as one CSV line. The cells are taken without building intermediate objects:
 * chunk columns come in schema order, so each one walks only the part of its path that differs
 * from the column before it (`address_info.status.match`, then `.details`...).
 */
export function csvLineRenderer(columns: readonly CsvColumn[], excel: boolean): (record: OutputRecord) => string {
  const guard = excel ? neutraliseFormula : asIs;
  let previous: readonly string[] = [];
  const steps = columns.map(({ source }): Step => {
    const step: Step = { from: source.from, name: '', field: undefined, path: [], shared: 0, orElse: undefined };
    if (source.from === 'input') step.name = source.name;
    else if (source.from === 'record') step.field = source.field;
    else {
      const { path } = source;
      while (step.shared < path.length - 1 && previous[step.shared] === path[step.shared]) step.shared += 1;
      previous = path;
      step.path = path;
      step.orElse = source.orElse;
    }
    return step;
  });
  // at[d]: the value reached after the first d segments of the chunk path walked last; at[0] is
  // the chunk. Both arrays are reused across records: rendering is synchronous.
  const at: unknown[] = [];
  // The cells are joined once: appending them one by one made two strings per cell (a fifth of
  // a run's allocation) for V8 to flatten again when the line was written.
  const cells = new Array<string>(steps.length).fill('');
  const last = steps.length - 1;
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
        if (value === undefined && step.orElse) value = valueAt(record.chunk, step.orElse);
        // Numbers and booleans never need quotes, nor the formula guard (a number is data); only
        // text from the answer is guarded, and a list or object is JSON text, never a formula.
        if (typeof value === 'number' || typeof value === 'boolean') cells[i] = String(value);
        else if (value !== null && typeof value === 'object') cells[i] = jsonCell(value);
        else cells[i] = quoted(typeof value === 'string' ? guard(value) : cellText(value));
      } else if (step.from === 'input') {
        cells[i] = quoted(guard(cellText(record.input[step.name])));
      } else {
        cells[i] = quoted(
          guard(step.field === 'row' ? String(record.row) : step.field === 'status' ? record.status : (record.error ?? '')),
        );
      }
    }
    // The line break joins the last cell rather than the joined line: `${line}\n` would be a
    // second string, made flat again (a copy of the line) by the writer's byte count.
    if (last < 0) return '\n';
    cells[last] = `${cells[last]!}\n`;
    return cells.join(',');
  };
}
