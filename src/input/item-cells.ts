import { checkIdentifier, checkParam, paramValue, type Identifier } from '../catalog/index.js';
import { undecodedText } from './encoding.js';
import { cleanText, metaText, notTextOrNumber, repairZip } from './normalize.js';
import type { InputRow } from './row.js';
import type { RowPlan, Slot } from './row-plan.js';

/** A spreadsheet shows long ids as 5.50790001011E+14, and that is what lands in the CSV. */
const SCIENTIFIC = /^\d(\.\d+)?e\+?\d+$/i;

/** A row's cells read into an item: what could be sent, what is wrong with the rest, which identifiers were refused for it. */
export interface ReadCells {
  item: Record<string, string | number>;
  /** Allocated only for a row with something wrong: most rows have nothing to report. */
  wrong: string[] | undefined;
  rejected: Set<string> | undefined;
}

function identifierProblem(identifier: Identifier, value: string): string | undefined {
  const problem = checkIdentifier(identifier, value);
  if (problem === undefined || !SCIENTIFIC.test(value)) return problem;
  return `${problem} (a spreadsheet turned it into a number; format the column as text and export again)`;
}

/** Told of each identifier made whole again (a ZIP that lost its leading zero), for the summary. */
type OnRepair = ((row: number, what: string) => void) | undefined;

/** An identifier's cell, normalized (a ZIP short of its zeros repaired) and checked. */
function readIdentifier(
  slot: Extract<Slot, { kind: 'identifier' }>,
  raw: unknown,
  row: number,
  cells: ReadCells,
  onRepair: OnRepair,
  takesState: boolean,
): void {
  let value = slot.normalize(raw);
  if (value === undefined) return;
  let notRepaired: string | undefined;
  // Slots are in name order: state, when the row has one, is already in the item.
  if (slot.name === 'zipcode' && value.length < 5) {
    const state = cells.item.state;
    const repair = repairZip(value, typeof state === 'string' ? state : undefined, takesState);
    if (repair !== undefined && 'zip' in repair) {
      onRepair?.(row, `zipcode ${value} → ${repair.zip}`);
      value = repair.zip;
    } else {
      notRepaired = repair?.why;
    }
  }
  const checked = identifierProblem(slot.identifier, value);
  const problem = checked !== undefined && notRepaired !== undefined ? `${checked} (${notRepaired})` : checked;
  if (problem === undefined) {
    cells.item[slot.name] = value;
  } else {
    (cells.wrong ??= []).push(problem);
    (cells.rejected ??= new Set()).add(slot.name);
  }
}

/** A parameter's cell, checked; an empty one takes the fixed value (a flag's) if there is one. */
function readParam(slot: Extract<Slot, { kind: 'param' }>, raw: unknown, cells: ReadCells): void {
  const text = cleanText(raw);
  if (text === undefined) {
    if (slot.fixed !== undefined) cells.item[slot.name] = slot.fixed;
    return;
  }
  const problem = checkParam(slot.param, text);
  if (problem === undefined) cells.item[slot.name] = paramValue(slot.param, text);
  else (cells.wrong ??= []).push(problem);
}

/** A cell that cannot be sent at all (undecoded bytes, an object): its slot's problem, or undefined. */
function unsendable(slot: Slot & { column: string }, raw: unknown): string | undefined {
  // Bytes that did not decode matter only where they would be sent (encoding.ts).
  const undecoded = typeof raw === 'string' ? undecodedText(raw) : undefined;
  if (undecoded !== undefined) return `${slot.name} ${undecoded}`;
  if (slot.kind === 'meta') return undefined;
  const notSendable = notTextOrNumber(raw);
  return notSendable === undefined ? undefined : `${slot.name} must be text or a number, not ${notSendable}`;
}

/** The row's cells as its plan's slots read them: the item, and what is wrong. */
export function readCells(rowPlan: RowPlan, row: InputRow, onRepair: OnRepair): ReadCells {
  const cells: ReadCells = { item: {}, wrong: undefined, rejected: undefined };
  for (const slot of rowPlan.slots) {
    if (slot.kind === 'fixed') {
      cells.item[slot.name] = slot.value;
      continue;
    }
    const raw = row.columns[slot.column];
    const problem = unsendable(slot, raw);
    if (problem !== undefined) {
      (cells.wrong ??= []).push(problem);
      if (slot.kind === 'identifier') (cells.rejected ??= new Set()).add(slot.name);
    } else if (slot.kind === 'meta') {
      const value = metaText(raw);
      if (value !== undefined) cells.item[slot.name] = value;
    } else if (slot.kind === 'identifier') {
      readIdentifier(slot, raw, row.row, cells, onRepair, rowPlan.takesState);
    } else {
      readParam(slot, raw, cells);
    }
  }
  return cells;
}
