import { ALL_IDENTIFIERS, META, type Endpoint, type Level } from '../catalog/index.js';
import type { QueryTarget } from './query-target.js';

/** A section as the store files it: the endpoint (with its version) and the endpoint's own parameters. */
export interface SectionRef {
  /** `v2/property/value`: the version, then the chunk member's name; for a path outside the catalog, the path. */
  endpoint: string;
  /** This endpoint's own parameters as canonical text; '' when none. */
  params: string;
}

/** An item's identity and the sections asked of it. */
export interface ItemRef {
  /** The level and the normalized identifiers as canonical text: never meta, never a parameter. */
  item: string;
  sections: readonly SectionRef[];
}

type Item = Readonly<Record<string, string | number>>;

const IDENTIFIERS: ReadonlySet<string> = new Set(ALL_IDENTIFIERS.filter((name) => name !== META.name));

/**
 * What an item is, whatever asks for it: its level and identifiers, as the preparer normalized them
 * (items list their keys in name order). Meta is only echoed, and parameters belong to sections.
 */
function itemIdentity(level: Level, item: Item): string {
  const identifiers: [string, string | number][] = [];
  for (const key in item) if (IDENTIFIERS.has(key)) identifiers.push([key, item[key]!]);
  return JSON.stringify([level, identifiers]);
}

/**
 * The parameters that shape one endpoint's section: its own (a value equal to the catalog's default
 * is the default, so it is left out), and any the catalog gives to none of the endpoints asked
 * (`--param` passes anything: it may matter, so it counts). A parameter only a sibling component
 * takes (client_value for value_within_block, in an mget with rental_value) does not: the
 * rental_value section is the one `property rental_value` buys.
 */
function paramsText(endpoint: Endpoint | undefined, siblings: ReadonlySet<string>, item: Item): string {
  const own = new Map(endpoint?.params.map((param) => [param.name, param]) ?? []);
  const params: [string, string | number][] = [];
  for (const key in item) {
    if (IDENTIFIERS.has(key) || key === META.name) continue;
    const param = own.get(key);
    if (param === undefined && siblings.has(key)) continue;
    const value = item[key]!;
    if (param?.default !== undefined && String(value) === param.default) continue;
    params.push([key, value]);
  }
  return params.length === 0 ? '' : JSON.stringify(params);
}

/**
 * What a target asks of an item, section by section, in the target's section order: the key under
 * which `property value`, an mget naming property/value, a one-off and `call v2/property/value`
 * all find one kept section.
 */
export function itemRefOf(target: QueryTarget, item: Item): ItemRef {
  const siblings = new Set(target.paramEndpoints.flatMap((endpoint) => endpoint.params.map((param) => param.name)));
  const identity = itemIdentity(target.level, item);
  if (target.sections.length === 0) {
    // A path outside the catalog: one section under the path, every parameter its own.
    return { item: identity, sections: [{ endpoint: target.path, params: paramsText(undefined, new Set(), item) }] };
  }
  return {
    item: identity,
    sections: target.sections.map((endpoint) => ({
      endpoint: `${endpoint.version}/${endpoint.name}`,
      params: paramsText(endpoint, siblings, item),
    })),
  };
}
