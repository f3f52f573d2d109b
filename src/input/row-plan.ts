import type { Identifier, LevelSpec, Param } from '../catalog/index.js';
import type { ColumnPlan } from './columns.js';
import { identifierNormalizer, type Normalizer } from './normalize.js';

const OPEN_KEY = /^[A-Za-z][A-Za-z0-9_]*$/;
const OPEN_PARAM = (name: string): Param => ({ name, type: 'string', description: 'passed through' });
const MAX_CACHED_PLANS = 256;

/** Where one member of the item comes from: an identifier's or a parameter's column, a fixed value, the meta column. */
export type Slot =
  | { kind: 'identifier'; name: string; column: string; identifier: Identifier; normalize: Normalizer }
  | { kind: 'param'; name: string; column: string; param: Param; fixed: string | number | undefined }
  | { kind: 'fixed'; name: string; value: string | number }
  | { kind: 'meta'; name: string; column: string };

/** How one set of columns turns into an item: slots in item key order (sorted, for batching). */
export interface RowPlan {
  slots: Slot[];
  /** The level's identifiers that no column feeds: a missing value is then the header's fault. */
  unfed: Set<string>;
  columns: readonly string[];
  /** Whether the level has a state identifier: what tells a ZIP's lost leading zero (the zip level has none). */
  takesState: boolean;
}

export interface RowPlanSettings {
  spec: LevelSpec;
  resolve: (columns: readonly string[]) => ColumnPlan;
  /** The fixed parameters' values (flags, --param), checked already. */
  fixed: ReadonlyMap<string, string | number>;
  /** `propdata call`: a column no identifier or parameter claims is sent as a parameter of its own name. */
  openKeys: boolean;
}

function buildPlan(columns: readonly string[], { spec, resolve, fixed, openKeys }: RowPlanSettings): RowPlan {
  const slots: Slot[] = [];
  const fed = new Set<string>();
  const resolved = resolve(columns);
  for (const { column, note } of resolved.passthrough) {
    if (!openKeys || note !== undefined || !OPEN_KEY.test(column) || fed.has(column)) continue;
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
  return { slots, unfed, columns, takesState: spec.identifiers.some((identifier) => identifier.name === 'state') };
}

/**
 * The plan of a row's columns, resolved once per distinct set of columns (one header for a CSV).
 * CSV rows all share one key list and JSONL rows mostly do: a row is compared with the last plan
 * without allocating, and a few plans are kept for inputs whose rows alternate between key sets.
 */
export function rowPlans(settings: RowPlanSettings): (columns: Record<string, unknown>) => RowPlan {
  let last: RowPlan | undefined;
  const plans = new Map<string, RowPlan>();
  return (columns) => {
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
    last = plans.get(signature) ?? buildPlan(keys, settings);
    if (plans.size < MAX_CACHED_PLANS) plans.set(signature, last);
    return last;
  };
}
