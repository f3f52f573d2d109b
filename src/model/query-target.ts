import {
  ENDPOINTS,
  findEndpoint,
  isMgetComponent,
  isMgetComponentOf,
  LEVELS,
  suggestEndpoints,
  type Endpoint,
  type Level,
} from '../catalog/index.js';
import { nearest } from '../catalog/nearest.js';
import { UsageError } from '../errors/index.js';

/**
 * What a query command calls: the request path, the level its items belong to, the endpoints
 * whose sections come back (one, or the components of an mget), and query-string members that
 * apply to the whole request (component_mget's `components`).
 */
export interface QueryTarget {
  path: string;
  level: Level;
  sections: readonly Endpoint[];
  /** The endpoints whose parameters the items may carry (for mget: the components). */
  paramEndpoints: readonly Endpoint[];
  query: Readonly<Record<string, string>>;
  /** Components each item costs: 1, or the number of mget components. */
  componentsPerItem: number;
  /**
   * `propdata call`: every identifier flag given is sent, and an input column that is neither an
   * identifier of the level nor a known parameter is sent as a parameter under its own name (when
   * that name could be one: letters, digits and underscores).
   */
  openKeys?: boolean;
  /** Report products take no POST (spec): a batch sends one GET per row. */
  getOnly?: boolean;
  /**
   * Parameters the items carry for sections this target does not ask (partOfTarget): left out of
   * what is sent, as the service refuses a key no endpoint of the request takes.
   */
  omitParams?: readonly string[];
}

export function singleEndpointTarget(endpoint: Endpoint): QueryTarget {
  return {
    path: `${endpoint.version}/${endpoint.name}`,
    level: endpoint.level,
    sections: [endpoint],
    paramEndpoints: [endpoint],
    query: {},
    componentsPerItem: 1,
  };
}

/** The chunk members whose api_code decides a record's status: the sections, or the path's own for a path outside the catalog. */
export function sectionKeys(target: QueryTarget): string[] {
  return target.sections.length > 0 ? target.sections.map((endpoint) => endpoint.name) : [target.path.replace(/^v\d\//, '')];
}

const MGET = findEndpoint('property/component_mget')!;

/**
 * The target for some of `target`'s sections (`indices`, ascending): an mget of the components an item
 * still lacks when the others are kept. Items lacking the same components share its requests (one
 * `components` list a request), so the components charged are the sections missing.
 */
export function partOfTarget(target: QueryTarget, indices: readonly number[]): QueryTarget {
  if (indices.length === sectionKeys(target).length) return target;
  const sections = indices.map((index) => target.sections[index]!);
  const kept = new Set(sections.flatMap((endpoint) => endpoint.params.map((param) => param.name)));
  const omitParams = [
    ...new Set(target.paramEndpoints.flatMap((endpoint) => endpoint.params.map((param) => param.name)).filter((name) => !kept.has(name))),
  ];
  return {
    ...target,
    sections,
    paramEndpoints: sections,
    query: { ...target.query, components: sections.map((endpoint) => endpoint.name).join(',') },
    componentsPerItem: sections.length,
    ...(omitParams.length > 0 ? { omitParams } : {}),
  };
}

/** What is sent for an item: the item as prepared, less the parameters of sections not asked this time. */
export function itemToSend<Item extends Readonly<Record<string, string | number>>>(target: QueryTarget, item: Item): Item {
  if (target.omitParams === undefined || !target.omitParams.some((name) => name in item)) return item;
  const sent: Record<string, string | number> = {};
  for (const key in item) if (!target.omitParams.includes(key)) sent[key] = item[key]!;
  return sent as Item;
}

/** `property/value,property/school` → the catalog endpoints, or a usage error naming the unknown one. */
export function parseComponents(list: string, level: Level = 'property'): Endpoint[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new UsageError('name at least one endpoint, e.g. property/value,property/school');
  const endpoints = names.map((name) => {
    const endpoint = findEndpoint(name.includes('/') ? name : `${level}/${name}`);
    if (!endpoint || !isMgetComponentOf(level, endpoint)) {
      // Another level's endpoint (`block/crime`) has a form for this level's items (`property/block_crime`).
      const mirror = endpoint && ENDPOINTS.find((candidate) => candidate.level === level && candidate.mirrors === endpoint.name);
      const suggestions = mirror
        ? [mirror.name]
        : suggestEndpoints(name).filter((candidate) => candidate.startsWith(`${level}/`) && !candidate.endsWith('/component_mget'));
      throw new UsageError(
        `"${name}" is not a ${level} endpoint component_mget can fetch` +
          (suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : `; see "propdata endpoints --level ${level}"`),
        'E_UNKNOWN_ENDPOINT',
      );
    }
    return endpoint;
  });
  // The service refuses a component named twice; each would be counted (and charged) anyway.
  const seen = new Set<string>();
  for (const endpoint of endpoints) {
    if (seen.has(endpoint.name)) throw new UsageError(`${endpoint.name} is named twice; name each endpoint once`);
    seen.add(endpoint.name);
  }
  return endpoints;
}

/** component_mget for these components: one section each, `components` in the query string. */
export function mgetTarget(components: readonly Endpoint[], mget: Endpoint = MGET): QueryTarget {
  return {
    path: `${mget.version}/${mget.name}`,
    level: mget.level,
    sections: components,
    paramEndpoints: components,
    query: { components: components.map((endpoint) => endpoint.name).join(',') },
    componentsPerItem: components.length,
  };
}

/** Every property endpoint but mget itself can be a component, including property/block_<target>. */
export const MGET_COMPONENTS: readonly Endpoint[] = ENDPOINTS.filter(isMgetComponent);

/** One endpoint is called as itself; several (`a,b`) are one component_mget. */
export function targetForList(list: string): QueryTarget {
  if (list.includes(',')) return mgetTarget(parseComponents(list));
  const endpoint = findEndpoint(list);
  if (endpoint?.mget)
    throw new UsageError(
      `${endpoint.name} fetches several endpoints at once: name them, e.g. property/value,property/school`,
      'E_UNKNOWN_ENDPOINT',
    );
  if (!endpoint) {
    const close = suggestEndpoints(list).filter((name) => name !== MGET.name);
    throw new UsageError(
      `unknown endpoint "${list}"${close.length > 0 ? `; did you mean ${close.join(', ')}?` : ''}`,
      'E_UNKNOWN_ENDPOINT',
    );
  }
  return singleEndpointTarget(endpoint);
}

const PATH = /^(v2|v3)\/([a-z_]+)\/([a-z0-9_-]+)$/;

/**
 * Any `<version>/<level>/<target>`, including paths the catalog does not describe (v3 targets,
 * zip/msa/... levels): the parameters given (`givenParams`) go through as they are and the result
 * is passed on untouched.
 */
export function callTarget(path: string, givenParams: Readonly<Record<string, string>> = {}): QueryTarget {
  const match = PATH.exec(path.trim().replace(/^\/+/, ''));
  if (!match) throw new UsageError(`"${path}" is not an endpoint path: give <version>/<level>/<target>, e.g. v3/property/hoa_est`);
  const [, version, level, rawTarget] = match as unknown as [string, 'v2' | 'v3', string, string];
  if (!(LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(
      `unknown level "${level}"; did you mean ${nearest(level, LEVELS).join(', ') || LEVELS.join(', ')}?`,
      'E_UNKNOWN_LEVEL',
    );
  }
  const target = rawTarget.replace(/-/g, '_');
  const known = findEndpoint(`${level}/${target}`);
  if (known?.mget && known.version === version) {
    // `--param components=a,b`: the mget it names, counted and read as `propdata mget` does.
    const components = givenParams.components;
    if (components === undefined) throw new UsageError(`${known.name} needs --param components=${level}/<target>,...`);
    return { ...mgetTarget(parseComponents(components, known.level), known), openKeys: true };
  }
  if (known && known.version === version) return { ...singleEndpointTarget(known), openKeys: true };
  const endpoint: Endpoint = {
    name: `${level}/${target}`,
    version,
    level: level as Level,
    target,
    description: 'not in the catalog',
    params: Object.keys(givenParams).map((name) => ({ name, type: 'string', description: 'passed through' })),
    price: 0,
  };
  return { ...singleEndpointTarget(endpoint), sections: [], openKeys: true, ...(level === 'reports' ? { getOnly: true } : {}) };
}
