import {
  checkParam,
  itemRequirements,
  LEVEL_SPECS,
  paramValue,
  unmetRequirements,
  type Endpoint,
  type Level,
  type Param,
} from '../catalog/index.js';
import { UsageError } from '../errors/index.js';
import { createColumnResolver } from './columns.js';
import { readCells, type ReadCells } from './item-cells.js';
import { missingIdentifiers, missingParams, type ValueSource } from './missing-values.js';
import { cleanText } from './normalize.js';
import type { InputRow, PreparedItem } from './row.js';
import { rowPlans } from './row-plan.js';

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

/** What a row that cannot be sent is told: each problem, named as its source names it, and what to do. */
function invalidText(
  row: InputRow,
  wrong: readonly string[] | undefined,
  missing: readonly string[] | undefined,
  source: ValueSource,
): string {
  if (source.fromFlags) {
    // A one-off's values came from flags: each problem names its flag (`--zipcode must be 5 digits`), not a column.
    const flagged = (wrong ?? []).map((problem) => problem.replace(/^([a-z][a-z0-9_]*)\b/, (name) => `--${name.replace(/_/g, '-')}`));
    return [...flagged, ...(missing ?? [])].join('; ');
  }
  const problems = [...(wrong ?? []), ...(missing ?? [])].join('; ');
  if (source.fromItems) return `item ${row.row}: ${problems}`;
  const advice = wrong ? 'correct the row or remove it' : 'add one or remove the row';
  return `row ${row.row}: ${problems}; ${advice}`;
}

/**
 * The preparer: a pure function from an input row to a request item or the reason it cannot be
 * sent. Column roles are resolved once per distinct set of columns (row-plan.ts), so the per-row
 * work is reading, normalizing and checking the cells that are sent (item-cells.ts), then naming
 * what the catalog says the item still lacks (missing-values.ts).
 */
export function createPreparer(plan: PreparePlan): (row: InputRow) => PreparedItem {
  const params = paramsOf(plan.endpoints);
  const fixed = fixedValues(plan.fixedParams, params);
  const planFor = rowPlans({
    spec: LEVEL_SPECS[plan.level],
    resolve: createColumnResolver({ level: plan.level, params, map: plan.map, metaColumn: plan.metaColumn }),
    fixed,
    openKeys: Boolean(plan.openKeys),
  });
  // What makes an item complete is the catalog's rule; only the wording for a row is here.
  const requirements = itemRequirements(plan.level, plan.endpoints);
  const identifierRequirements = requirements.filter((requirement) => requirement.kind === 'identifier');
  const paramRequirements = requirements.filter((requirement) => requirement.kind !== 'identifier');
  const source: ValueSource = { fromFlags: plan.fromFlags, fromItems: plan.fromItems };
  // The row being prepared, read by the two checks below: made once, not per row.
  let cells: ReadCells = { item: {}, wrong: undefined, rejected: undefined };
  const present = (name: string) => cells.item[name] !== undefined;
  const givenOrRejected = (name: string) => present(name) || cells.rejected?.has(name) === true;

  return (row) => {
    if (row.readError !== undefined) {
      const where = row.line === undefined ? `row ${row.row}` : `row ${row.row} (line ${row.line})`;
      return { row: row.row, columns: row.columns, invalid: `${where}: ${row.readError}` };
    }
    const rowPlan = planFor(row.columns);
    cells = readCells(rowPlan, row, plan.onRepair);
    let missing: string[] | undefined;
    const needed = missingIdentifiers(identifierRequirements, givenOrRejected, rowPlan, source);
    if (needed) (missing ??= []).push(needed);
    const unmetParams = unmetRequirements(paramRequirements, present);
    if (unmetParams.length > 0) (missing ??= []).push(...missingParams(unmetParams, source));
    if (!cells.wrong && !missing) return { row: row.row, columns: row.columns, item: cells.item };
    return { row: row.row, columns: row.columns, invalid: invalidText(row, cells.wrong, missing, source) };
  };
}
