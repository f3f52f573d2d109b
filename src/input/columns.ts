import { LEVEL_SPECS, META, type Identifier, type Level, type Param } from '../catalog/index.js';
import { UsageError } from '../errors/index.js';

/**
 * Other names analysts give identifier columns, keyed by the catalog's identifier name. Matching
 * is on the normalized header (lower case, spaces, dots and hyphens as `_`), so `Zip Code` is
 * `zip_code`. An alias only applies where the level has that identifier.
 */
export const IDENTIFIER_ALIASES: Readonly<Record<string, readonly string[]>> = {
  address: ['street', 'street_address', 'streetaddress', 'address1', 'address_1', 'address_line_1', 'address_line1', 'addr'],
  unit: ['address2', 'address_2', 'address_line_2', 'address_line2', 'apt', 'apartment', 'suite', 'unit_number', 'unit_no'],
  city: ['town', 'city_name'],
  state: ['st', 'state_code', 'state_abbr', 'state_abbreviation', 'province'],
  zipcode: ['zip', 'zip_code', 'zip5', 'postal_code', 'postalcode', 'postcode', 'post_code'],
  slug: ['address_slug'],
  block_id: ['blockid', 'block', 'census_block'],
  blockgroup_id: ['block_group_id', 'blockgroupid', 'block_group', 'blockgroup'],
  msa: ['cbsa', 'cbsa_code', 'msa_code'],
  metrodiv: ['metro_division', 'metropolitan_division', 'metrodiv_code'],
};

const SEPARATORS = /[\s.-]+/g;

/** JSONL from a stream may bring endless new keys; past this many, names are resolved uncached. */
const MAX_CACHED_NAMES = 10_000;

const MAX_LISTED_COLUMNS = 12;

/** The input's columns for a message: the first few, enough to spot a misspelling. */
export function listColumns(columns: readonly string[]): string {
  const shown = columns.slice(0, MAX_LISTED_COLUMNS).join(', ');
  return columns.length > MAX_LISTED_COLUMNS ? `${shown}, ...` : shown || 'none';
}

/** How header names are compared: `Zip Code`, `zip-code` and `ZIP_CODE` are the same name. */
export function normalizeName(name: string): string {
  return name.trim().toLowerCase().replace(SEPARATORS, '_');
}

export interface ColumnSettings {
  level: Level;
  /** Parameters the items may carry (for mget: the union of the components'). */
  params: ReadonlyMap<string, Param>;
  /** `--map column=name`: a column for an identifier, a parameter or meta; `column=` ignores it. */
  map: Readonly<Record<string, string>>;
  /** `--meta-column`; default: a column named meta. */
  metaColumn?: string | undefined;
}

export type Target =
  | { kind: 'identifier'; name: string; identifier: Identifier }
  | { kind: 'param'; name: string; param: Param }
  | { kind: 'meta'; name: string };

/** Why a column feeds its target; also the precedence when two columns claim one (lowest wins). */
const VIA = ['--map', '--meta-column', 'name', 'alias'] as const;
type Via = (typeof VIA)[number];

export interface Assignment {
  column: string;
  target: Target;
  via: Via;
}

export interface ColumnPlan {
  /** Columns that are sent, in input order. */
  assigned: Assignment[];
  /** Columns kept verbatim in the output and never sent, with the reason when one was a candidate. */
  passthrough: { column: string; note?: string }[];
}

type Claim = { target: Target; via: Via } | { ignored: true } | undefined;

/** The targets --map may name: the level's identifiers, the parameters, meta. */
function mapTargets(settings: ColumnSettings): Map<string, Target> {
  const targets = new Map<string, Target>();
  for (const identifier of LEVEL_SPECS[settings.level].identifiers) {
    targets.set(identifier.name, { kind: 'identifier', name: identifier.name, identifier });
  }
  for (const param of settings.params.values()) targets.set(param.name, { kind: 'param', name: param.name, param });
  targets.set(META.name, { kind: 'meta', name: META.name });
  return targets;
}

/**
 * Resolves columns to what they feed. The claim of each column name depends only on the name and
 * the settings, so it is computed once per distinct name (JSONL rows may bring new keys at any
 * line) and a whole header's plan costs one map lookup per column.
 */
export function createColumnResolver(settings: ColumnSettings): (columns: readonly string[]) => ColumnPlan {
  const targets = mapTargets(settings);
  const byName = new Map<string, Target>();
  const byAlias = new Map<string, Target>();
  for (const identifier of LEVEL_SPECS[settings.level].identifiers) {
    const target = targets.get(identifier.name)!;
    byName.set(identifier.name, target);
    for (const alias of IDENTIFIER_ALIASES[identifier.name] ?? []) byAlias.set(alias, target);
  }
  for (const param of settings.params.values()) byName.set(param.name, targets.get(param.name)!);

  const mapped = new Map<string, string>();
  for (const [column, name] of Object.entries(settings.map)) {
    const wanted = name.trim();
    if (wanted !== '' && !targets.has(wanted)) {
      throw new UsageError(
        `--map ${column}=${name}: ${wanted} is not something a ${settings.level} item carries; ` +
          `use one of ${[...targets.keys()].join(', ')} (or ${column}= to ignore the column)`,
        'E_USAGE_MAP',
      );
    }
    mapped.set(normalizeName(column), wanted);
  }
  const metaColumn = settings.metaColumn === undefined ? undefined : normalizeName(settings.metaColumn);
  const meta = targets.get(META.name)!;

  const claims = new Map<string, Claim>();
  const claimOf = (column: string): Claim => {
    if (claims.has(column)) return claims.get(column);
    const name = normalizeName(column);
    const mappedTo = mapped.get(name);
    let claim: Claim;
    if (mappedTo === '') claim = { ignored: true };
    else if (mappedTo !== undefined) claim = { target: targets.get(mappedTo)!, via: '--map' };
    else if (metaColumn !== undefined && name === metaColumn) claim = { target: meta, via: '--meta-column' };
    else if (metaColumn === undefined && name === META.name) claim = { target: meta, via: 'name' };
    else if (byName.has(name)) claim = { target: byName.get(name)!, via: 'name' };
    else if (byAlias.has(name)) claim = { target: byAlias.get(name)!, via: 'alias' };
    if (claims.size < MAX_CACHED_NAMES) claims.set(column, claim);
    return claim;
  };

  return (columns) => {
    const winners = new Map<string, Assignment>();
    for (const column of columns) {
      const claim = claimOf(column);
      if (!claim || 'ignored' in claim) continue;
      const current = winners.get(claim.target.name);
      // Deterministic: a stronger reason wins (--map, then the exact name, then an alias); on a
      // tie the column further left wins.
      if (!current || VIA.indexOf(claim.via) < VIA.indexOf(current.via)) {
        winners.set(claim.target.name, { column, ...claim });
      }
    }
    const plan: ColumnPlan = { assigned: [], passthrough: [] };
    for (const column of columns) {
      const claim = claimOf(column);
      const winner = claim && !('ignored' in claim) ? winners.get(claim.target.name) : undefined;
      if (winner?.column === column) plan.assigned.push(winner);
      else if (winner) plan.passthrough.push({ column, note: `"${winner.column}" already feeds ${winner.target.name}` });
      else if (claim) plan.passthrough.push({ column, note: 'ignored by --map' });
      else plan.passthrough.push({ column });
    }
    return plan;
  };
}
