import type { Endpoint, Identifier, Level, Param } from '../catalog/index.js';
import { createColumnResolver } from './columns.js';
import { numberText, scientific } from './xlsx-cell-text.js';

/** What decides which columns feed identifiers: the same settings the preparer resolves columns with. */
export interface IdentifierSettings {
  level: Level;
  endpoints: readonly Endpoint[];
  map: Readonly<Record<string, string>>;
  metaColumn?: string | undefined;
}

/** Excel's General format shows a number of more than 11 digits with 6 significant ones: 6.03767E+14. */
const GENERAL_MAX_DIGITS = 11;
const SHOWN_DIGITS = 6;
const FIRST_ROWS = 5;

/** The columns that feed digit identifiers (zipcode, block_id...), by column name. */
export function identifierColumns(header: readonly string[], settings: IdentifierSettings): Map<string, Identifier> {
  const params = new Map<string, Param>();
  for (const endpoint of settings.endpoints) for (const param of endpoint.params) params.set(param.name, param);
  const plan = createColumnResolver({ ...settings, params })(header);
  const columns = new Map<string, Identifier>();
  for (const { column, target } of plan.assigned) {
    if (target.kind === 'identifier' && target.identifier.digits !== undefined) columns.set(column, target.identifier);
  }
  return columns;
}

/**
 * Counts the identifier cells made text again, for the summary: how many, the first rows, and an
 * example of what was done.
 */
export class IdentifierRepairs {
  count = 0;
  readonly firstRows: number[] = [];
  example: string | undefined;

  record(row: number, identifier: Identifier, from: number, to: string): void {
    this.count += 1;
    this.example ??= `${identifier.name} ${from} → ${to}`;
    if (this.firstRows.length < FIRST_ROWS && this.firstRows.at(-1) !== row) this.firstRows.push(row);
  }

  /** One line for the end of the run, or undefined when nothing was repaired. */
  describe(): string | undefined {
    if (this.count === 0) return undefined;
    const more = this.count > this.firstRows.length ? ', ...' : '';
    const cells =
      this.count === 1
        ? 'identifier cell was a number in the workbook and got its'
        : 'identifier cells were numbers in the workbook and got their';
    const rows = this.firstRows.length === 1 ? 'row' : 'rows';
    return `propdata: ${this.count} ${cells} leading zeros back (${this.example}); ${rows} ${this.firstRows.join(', ')}${more}`;
  }

  /** The same for --report and the summary sheet. */
  report(): { identifierCells: number; firstRows: number[]; example: string } | undefined {
    return this.count === 0 ? undefined : { identifierCells: this.count, firstRows: this.firstRows, example: this.example! };
  }
}

/**
 * A number in an identifier column, as the text it was before the spreadsheet made it a number:
 * at the identifier's width, its leading zeros back (a block id of 14 digits gets its 0). A ZIP is
 * left as its digits: whether a zero was lost depends on the row's state, and the preparer decides
 * that by the one rule every format shares (repairZip: 2113 in MA is 02113, in MD it is refused). A number Excel cannot have kept
 * whole (more than 15 digits), or one that is the 6-digit rounding Excel shows for a long id
 * (603767000000000 from 6.03767E+14), becomes the scientific notation the preparer refuses with
 * advice, rather than a wrong id that would be sent.
 */
export function identifierText(value: number, identifier: Identifier, repaired: (text: string) => void): string {
  if (!Number.isInteger(value) || value < 0) return numberText(value);
  const digits = numberText(value);
  if (!/^\d+$/.test(digits)) return digits;
  const significant = digits.replace(/0+$/, '').length;
  if (digits.length > GENERAL_MAX_DIGITS && significant <= SHOWN_DIGITS) return scientific(value, SHOWN_DIGITS);
  const width = identifier.digits!;
  if (identifier.name === 'zipcode' || width <= digits.length) return digits;
  const text = digits.padStart(width, '0');
  repaired(text);
  return text;
}
