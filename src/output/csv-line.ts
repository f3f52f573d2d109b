import type { CsvColumn } from './csv-columns.js';
import { neutraliseFormula } from './excel-guard.js';
import type { OutputRecord } from '../model/record.js';

/** A cell needs quotes when it holds the delimiter, a quote or a line break. */
const NEEDS_QUOTES = /[",\r\n]/;

/** null and absent are empty; booleans `true`/`false`; lists and free-form objects JSON text. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** RFC 4180 quoting as csv-stringify does it by default: quotes doubled inside, empty cells bare. */
function quoted(cell: string): string {
  if (!NEEDS_QUOTES.test(cell)) return cell;
  // replaceAll copies the cell even when it has no quote to double (an address with a comma).
  return cell.includes('"') ? `"${cell.replaceAll('"', '""')}"` : `"${cell}"`;
}

const asIs = (cell: string) => cell;

/** One CSV line, `\n`-terminated: the header. */
export function csvLine(cells: readonly string[], excel: boolean): string {
  return `${cells.map((cell) => quoted(excel ? neutraliseFormula(cell) : cell)).join(',')}\n`;
}

/**
 * Renders a record as one CSV line. Done here rather than by csv-stringify per record (its sync
 * API validates its options on every call, a tenth of a large run's time), and without building
 * a cell array: chunk columns come in schema order, so each one walks only the part of its path
 * that differs from the column before it (`address_info.status.match`, then `.details`...).
 */
export function csvLineRenderer(columns: readonly CsvColumn[], excel: boolean): (record: OutputRecord) => string {
  const guard = excel ? neutraliseFormula : asIs;
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
  return (record) => {
    at[0] = record.chunk;
    let line = '';
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      let text: string;
      if (step.from === 'chunk') {
        const { path } = step;
        let value = at[step.shared];
        for (let d = step.shared; d < path.length; d++) {
          value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[path[d]!] : undefined;
          at[d + 1] = value;
        }
        // Numbers and booleans never need quotes, nor the formula guard (a number is data).
        if (typeof value === 'number' || typeof value === 'boolean') {
          line += i === 0 ? String(value) : `,${value}`;
          continue;
        }
        text = cellText(value);
      } else if (step.from === 'input') {
        text = cellText(record.input[step.name]);
      } else {
        text = step.field === 'row' ? String(record.row) : step.field === 'status' ? record.status : (record.error ?? '');
      }
      line += i === 0 ? quoted(guard(text)) : `,${quoted(guard(text))}`;
    }
    return `${line}\n`;
  };
}
