import {
  checkIdentifier,
  checkParam,
  itemRequirements,
  LEVEL_SPECS,
  oneOfMessage,
  paramValue,
  unmetRequirements,
  type Endpoint,
  type Identifier,
  type ItemRequirement,
  type Level,
  type Param,
} from '../catalog/index.js';
import { UsageError } from '../errors/index.js';
import { createColumnResolver, listColumns, type ColumnSettings } from './columns.js';
import { undecodedText } from './encoding.js';
import { cleanText, identifierNormalizer, metaText, notTextOrNumber, repairZip, type Normalizer } from './normalize.js';
import type { InputRow, PreparedItem } from './row.js';

export interface PreparePlan {
  level: Level;
  /** The endpoint, or the components of an mget: their parameters may come from columns. */
  endpoints: readonly Endpoint[];
  /** --param and the named parameter flags: every row gets them unless its own column has a value. */
  fixedParams: Record<string, string>;
  map: Record<string, string>;
  metaColumn?: string;
  /** A one-off names flags (`--address`), not rows and columns: its item comes from the command line. */
  fromFlags?: boolean;
  /** A library batch's items: objects keyed by the catalog's names (or mapped by its `columns` option), not a file's columns. */
  fromItems?: boolean;
  /**
   * `propdata call`: a column no identifier or parameter claims is sent as a parameter under its
   * own name when that name could be one (letters, digits, underscores: not `_row`, `a.b`, `Owner Name`).
   */
  openKeys?: boolean;
  /** Told of each identifier made whole again (a ZIP that lost its leading zero), for the summary. */
  onRepair?: (row: number, what: string) => void;
}

const OPEN_KEY = /^[A-Za-z][A-Za-z0-9_]*$/;
const OPEN_PARAM = (name: string): Param => ({ name, type: 'string', description: 'passed through' });

type Slot =
  | { kind: 'identifier'; name: string; column: string; identifier: Identifier; normalize: Normalizer }
  | { kind: 'param'; name: string; column: string; param: Param; fixed: string | number | undefined }
  | { kind: 'fixed'; name: string; value: string | number }
  | { kind: 'meta'; name: string; column: string };

/** How one set of columns turns into an item: slots in item key order (sorted, for batching). */
interface RowPlan {
  slots: Slot[];
  /** The level's identifiers that no column feeds: a missing value is then the header's fault. */
  unfed: Set<string>;
  columns: readonly string[];
}

/** A spreadsheet shows long ids as 5.50790001011E+14, and that is what lands in the CSV. */
const SCIENTIFIC = /^\d(\.\d+)?e\+?\d+$/i;
const MAX_CACHED_PLANS = 256;

/** Parameters by name over all the endpoints (an mget's components share client_value and such). */
function paramsOf(endpoints: readonly Endpoint[]): Map<string, Param> {
  const params = new Map<string, Param>();
  for (const endpoint of endpoints) {
    for (const param of endpoint.params) if (!params.has(param.name)) params.set(param.name, param);
  }
  return params;
}

/** Fixed parameters are checked once, up front: a bad flag would otherwise fail every row. */
function fixedValues(fixedParams: Record<string, string>, params: Map<string, Param>): Map<string, string | number> {
  const values = new Map<string, string | number>();
  for (const [name, raw] of Object.entries(fixedParams)) {
    const text = cleanText(raw);
    if (text === undefined) continue;
    const param = params.get(name);
    if (!param) {
      // --param is open-ended (the spec lists no closed set); unknown names travel as given.
      values.set(name, text);
      continue;
    }
    const problem = checkParam(param, text);
    // Fixed parameters come from flags (--client-value, or --param client_value=...): named as the flag.
    if (problem) throw new UsageError(problem.replace(/^[a-z][a-z0-9_]*/, `--${name.replace(/_/g, '-')}`), 'E_USAGE_PARAM');
    values.set(name, paramValue(param, text));
  }
  return values;
}

function identifierProblem(identifier: Identifier, value: string): string | undefined {
  const problem = checkIdentifier(identifier, value);
  if (problem === undefined || !SCIENTIFIC.test(value)) return problem;
  return `${problem} (a spreadsheet turned it into a number; format the column as text and export again)`;
}

/**
 * The preparer: a pure function from an input row to a request item or the reason it cannot be
 * sent. Column roles are resolved once per distinct set of columns (one header for a CSV), so the
 * per-row work is reading, normalizing and checking the cells that are sent.
 */
export function createPreparer(plan: PreparePlan): (row: InputRow) => PreparedItem {
  const spec = LEVEL_SPECS[plan.level];
  const params = paramsOf(plan.endpoints);
  const fixed = fixedValues(plan.fixedParams, params);
  const settings: ColumnSettings = { level: plan.level, params, map: plan.map, metaColumn: plan.metaColumn };
  const resolve = createColumnResolver(settings);
  // What makes an item complete is the catalog's rule; only the wording for a row is here.
  const requirements = itemRequirements(plan.level, plan.endpoints);
  const identifierRequirements = requirements.filter((requirement) => requirement.kind === 'identifier');
  const paramRequirements = requirements.filter((requirement) => requirement.kind !== 'identifier');

  function buildPlan(columns: readonly string[]): RowPlan {
    const slots: Slot[] = [];
    const fed = new Set<string>();
    const resolved = resolve(columns);
    for (const { column, note } of resolved.passthrough) {
      if (!plan.openKeys || note !== undefined || !OPEN_KEY.test(column) || fed.has(column)) continue;
      fed.add(column);
      slots.push({ kind: 'param', name: column, column, param: OPEN_PARAM(column), fixed: fixed.get(column) });
    }
    for (const { column, target } of resolved.assigned) {
      fed.add(target.name);
      if (target.kind === 'identifier') {
        const { identifier } = target;
        slots.push({ kind: 'identifier', name: target.name, column, identifier, normalize: identifierNormalizer(identifier) });
      } else if (target.kind === 'param') {
        slots.push({ kind: 'param', name: target.name, column, param: target.param, fixed: fixed.get(target.name) });
      } else {
        slots.push({ kind: 'meta', name: target.name, column });
      }
    }
    for (const [name, value] of fixed) if (!fed.has(name)) slots.push({ kind: 'fixed', name, value });
    slots.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const unfed = new Set(spec.identifiers.map((identifier) => identifier.name).filter((name) => !fed.has(name)));
    return { slots, unfed, columns };
  }

  // CSV rows all share one key list and JSONL rows mostly do: compare with the last one without
  // allocating, and keep a few plans for inputs whose rows alternate between key sets.
  let last: RowPlan | undefined;
  const plans = new Map<string, RowPlan>();
  function planFor(columns: Record<string, unknown>): RowPlan {
    if (last) {
      let i = 0;
      let same = true;
      for (const key in columns) {
        if (last.columns[i] !== key) {
          same = false;
          break;
        }
        i += 1;
      }
      if (same && i === last.columns.length) return last;
    }
    const keys = Object.keys(columns);
    const signature = keys.join('\n');
    last = plans.get(signature) ?? buildPlan(keys);
    if (plans.size < MAX_CACHED_PLANS) plans.set(signature, last);
    return last;
  }

  // The item and the identifiers rejected for a wrong value (already reported as such) of the row
  // being prepared: `present` is made once, not per row.
  let current: Record<string, string | number> = {};
  let rejectedNow: ReadonlySet<string> | undefined;
  const present = (name: string) => current[name] !== undefined;
  const givenOrRejected = (name: string) => current[name] !== undefined || rejectedNow?.has(name) === true;

  function missingIdentifiers(rowPlan: RowPlan): string | undefined {
    const unmet = unmetRequirements(identifierRequirements, givenOrRejected);
    if (unmet.length === 0) return undefined;
    const noColumn = (names: string[]) => {
      if (plan.fromFlags) return ` (give ${names.map((name) => `--${name.replace(/_/g, '-')}`).join(' or ')})`;
      if (plan.fromItems)
        return names.every((name) => rowPlan.unfed.has(name))
          ? ` (its keys: ${listColumns(rowPlan.columns)}; the batch's \`columns\` option maps other names)`
          : '';
      return names.every((name) => rowPlan.unfed.has(name))
        ? ` (no column is recognised as ${names.join(' or ')}; columns: ${listColumns(rowPlan.columns)}; ` +
            `rename one or use --map COLUMN=${names[0]})`
        : '';
    };
    const alternatives = unmet[0]!.anyOf;
    if (alternatives.length > 1) {
      const names = alternatives.map((name) => `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`).join(' or ');
      return `needs ${names}${plan.fromFlags || plan.fromItems ? '' : ' column value'}${noColumn([...alternatives])}`;
    }
    const missing = unmet.map((requirement) => requirement.anyOf[0]!);
    return `needs a ${missing.join(' and a ')} value${noColumn(missing)}`;
  }

  /** Required parameters, each named once (an mget's components share them), then the "at least one of" sets. */
  function missingParams(unmet: readonly ItemRequirement[]): string[] {
    const names = new Set(unmet.filter((requirement) => requirement.kind === 'param').map((requirement) => requirement.anyOf[0]!));
    const where = (name: string) =>
      plan.fromFlags
        ? `--${name.replace(/_/g, '-')} or --param ${name}=...`
        : plan.fromItems
          ? `a member of the item, or the batch's \`params\``
          : `a column or --param ${name}=...`;
    return [
      ...[...names].map((name) => `needs a ${name} value (${where(name)})`),
      ...unmet.filter((requirement) => requirement.kind === 'one-of').map(oneOfMessage),
    ];
  }

  return (row) => {
    if (row.readError !== undefined) {
      const where = row.line === undefined ? `row ${row.row}` : `row ${row.row} (line ${row.line})`;
      return { row: row.row, columns: row.columns, invalid: `${where}: ${row.readError}` };
    }
    const rowPlan = planFor(row.columns);
    const item: Record<string, string | number> = {};
    // Allocated only for rows that have something wrong: most rows have nothing to report.
    let wrong: string[] | undefined;
    let missing: string[] | undefined;
    let rejected: Set<string> | undefined;
    for (const slot of rowPlan.slots) {
      if (slot.kind === 'fixed') {
        item[slot.name] = slot.value;
        continue;
      }
      const raw = row.columns[slot.column];
      // Bytes that did not decode matter only where they would be sent (encoding.ts).
      const undecoded = typeof raw === 'string' ? undecodedText(raw) : undefined;
      if (undecoded !== undefined) {
        (wrong ??= []).push(`${slot.name} ${undecoded}`);
        if (slot.kind === 'identifier') (rejected ??= new Set()).add(slot.name);
        continue;
      }
      if (slot.kind === 'meta') {
        const value = metaText(raw);
        if (value !== undefined) item[slot.name] = value;
        continue;
      }
      const notSendable = notTextOrNumber(raw);
      if (notSendable !== undefined) {
        (wrong ??= []).push(`${slot.name} must be text or a number, not ${notSendable}`);
        if (slot.kind === 'identifier') (rejected ??= new Set()).add(slot.name);
      } else if (slot.kind === 'identifier') {
        let value = slot.normalize(raw);
        if (value === undefined) continue;
        // Slots are in name order: state, when the row has one, is already in the item.
        if (slot.name === 'zipcode' && value.length < 5) {
          const state = item.state;
          const repaired = repairZip(value, typeof state === 'string' ? state : undefined);
          if (repaired !== undefined) {
            plan.onRepair?.(row.row, `zipcode ${value} → ${repaired}`);
            value = repaired;
          }
        }
        const problem = identifierProblem(slot.identifier, value);
        if (problem === undefined) {
          item[slot.name] = value;
        } else {
          (wrong ??= []).push(problem);
          (rejected ??= new Set()).add(slot.name);
        }
      } else {
        const text = cleanText(raw);
        if (text === undefined) {
          if (slot.fixed !== undefined) item[slot.name] = slot.fixed;
          continue;
        }
        const problem = checkParam(slot.param, text);
        if (problem === undefined) item[slot.name] = paramValue(slot.param, text);
        else (wrong ??= []).push(problem);
      }
    }

    current = item;
    rejectedNow = rejected;
    const needed = missingIdentifiers(rowPlan);
    if (needed) (missing ??= []).push(needed);
    const unmetParams = unmetRequirements(paramRequirements, present);
    if (unmetParams.length > 0) (missing ??= []).push(...missingParams(unmetParams));
    if (!wrong && !missing) return { row: row.row, columns: row.columns, item };
    if (plan.fromFlags) {
      // A one-off's values came from flags: each problem names its flag (`--zipcode must be 5 digits`), not a column.
      const flagged = (wrong ?? []).map((problem) => problem.replace(/^([a-z][a-z0-9_]*)\b/, (name) => `--${name.replace(/_/g, '-')}`));
      return { row: row.row, columns: row.columns, invalid: [...flagged, ...(missing ?? [])].join('; ') };
    }
    const problems = [...(wrong ?? []), ...(missing ?? [])].join('; ');
    if (plan.fromItems) return { row: row.row, columns: row.columns, invalid: `item ${row.row}: ${problems}` };
    const advice = wrong ? 'correct the row or remove it' : 'add one or remove the row';
    return { row: row.row, columns: row.columns, invalid: `row ${row.row}: ${problems}; ${advice}` };
  };
}
