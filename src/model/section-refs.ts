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

/** Each identifier's pair as an identity's text opens it (`["address",`); none for anything else. */
const PAIR_OPENING: Readonly<Record<string, string | undefined>> = Object.assign(
  Object.create(null) as Record<string, string>,
  Object.fromEntries([...IDENTIFIERS].map((name) => [name, `[${JSON.stringify(name)},`])),
);

/**
 * What an item is, whatever asks for it: its level and identifiers, as the preparer normalized them
 * (items list their keys in name order). Meta is only echoed, and parameters belong to sections.
 */
function itemIdentity(level: Level, item: Item): string {
  // JSON.stringify([level, [[key, value], ...]]), written out, each pair's opening made once: the
  // pairs' arrays were garbage a row, and the identity 3 to 4% of a rerun's main thread.
  let pairs = '';
  for (const key in item) {
    const opening = PAIR_OPENING[key];
    if (opening !== undefined) pairs += `${pairs === '' ? '' : ','}${opening}${JSON.stringify(item[key])}]`;
  }
  return `[${JSON.stringify(level)},[${pairs}]]`;
}

/** What shapes one endpoint's parameters: its own, by name. */
type OwnParams = ReadonlyMap<string, Endpoint['params'][number]>;

/**
 * The parameters that shape one endpoint's section: its own (a value equal to the catalog's default
 * is the default, so it is left out), and any the catalog gives to none of the endpoints asked
 * (`--param` passes anything: it may matter, so it counts). A parameter only a sibling component
 * takes (client_value for value_within_block, in an mget with rental_value) does not: the
 * rental_value section is the one `property rental_value` buys.
 */
function paramsText(own: OwnParams, siblings: ReadonlySet<string>, item: Item): string {
  let params: [string, string | number][] | undefined;
  for (const key in item) {
    if (IDENTIFIERS.has(key) || key === META.name) continue;
    const param = own.get(key);
    if (param === undefined && siblings.has(key)) continue;
    const value = item[key]!;
    if (param?.default !== undefined && String(value) === param.default) continue;
    (params ??= []).push([key, value]);
  }
  return params === undefined ? '' : JSON.stringify(params);
}

/** What a target's refs are made from, worked out once per target rather than once per item. */
interface TargetSections {
  siblings: ReadonlySet<string>;
  sections: readonly { endpoint: string; own: OwnParams }[];
  /** The refs of an item that carries no parameter: the same for every such item. */
  plain: readonly SectionRef[];
}

const targetSections = new WeakMap<QueryTarget, TargetSections>();

/** The target's TargetSections, made at its first item. */
function sectionsOf(target: QueryTarget): TargetSections {
  let known = targetSections.get(target);
  if (known) return known;
  // A path outside the catalog: one section under the path, every parameter its own.
  const catalogued = target.sections.length > 0;
  const sections = catalogued
    ? target.sections.map((endpoint) => ({
        endpoint: `${endpoint.version}/${endpoint.name}`,
        own: new Map(endpoint.params.map((param) => [param.name, param])),
      }))
    : [{ endpoint: target.path, own: new Map() }];
  known = {
    siblings: new Set(catalogued ? target.paramEndpoints.flatMap((endpoint) => endpoint.params.map((param) => param.name)) : []),
    sections,
    plain: sections.map(({ endpoint }) => ({ endpoint, params: '' })),
  };
  targetSections.set(target, known);
  return known;
}

/**
 * What a target asks of an item, section by section, in the target's section order: the key under
 * which `property value`, an mget naming property/value, a one-off and `call v2/property/value`
 * all find one kept section. An item with no parameter (most) shares its target's section refs.
 */
export function itemRefOf(target: QueryTarget, item: Item): ItemRef {
  const identity = itemIdentity(target.level, item);
  const { siblings, sections, plain } = sectionsOf(target);
  let refs: SectionRef[] | undefined;
  sections.forEach(({ endpoint, own }, i) => {
    const params = paramsText(own, siblings, item);
    if (params === '' && refs === undefined) return;
    refs ??= plain.slice(0, i);
    refs.push({ endpoint, params });
  });
  return { item: identity, sections: refs ?? plain };
}
