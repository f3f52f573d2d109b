import {
  LEVEL_SPECS,
  META,
  checkIdentifier,
  checkParam,
  findEndpoint,
  isMgetComponentOf,
  itemRequirements,
  keySetOf,
  oneOfMessage,
  paramValue,
  unmetRequirements,
  type Endpoint,
  type ItemRequirement,
  type LevelSpec,
  type Param,
  MAX_ITEMS_PER_REQUEST,
} from '../catalog/index.js';
import { isJsonContentType } from './content-type.js';

/** One requested item, validated: what the answer (the sandbox's chunk) is built from. */
export interface RequestItem {
  /** Identifier values as text, empty ones left out. */
  identifiers: Readonly<Record<string, string>>;
  /** Endpoint parameters after merging the query string and the item (the item wins). */
  params: Readonly<Record<string, string | number>>;
  /** The identifiers exactly as sent, echoed in address_info.status.requested_item. */
  requested: Readonly<Record<string, unknown>>;
  /** Present when the item carried meta: echoed as the chunk's top-level `meta`. */
  meta?: { value: unknown };
}

export interface ParsedRequest {
  /** The endpoints answered per item: the components of a component_mget, else the endpoint itself. */
  sections: readonly Endpoint[];
  items: RequestItem[];
  /** Keys the spec does not list for this request, ignored (not strict): named in a response header. */
  ignoredKeys: string[];
}

/** A 400: the message names the item and the rule it broke. */
export class RequestRejected extends Error {}

const COMPONENTS = 'components';

/** `components` of a component_mget: catalog names of its level, comma-separated, no spaces, no repeats. */
function componentsOf(mget: Endpoint, query: URLSearchParams): Endpoint[] {
  const text = query.get(COMPONENTS);
  if (text === null || text.trim() === '') throw new RequestRejected('components is required: comma-separated endpoint names');
  if (/\s/.test(text)) throw new RequestRejected(`components must not contain spaces, got "${text}"`);
  const names = text.split(',');
  return names.map((name, index) => {
    const endpoint = findEndpoint(name);
    if (!endpoint || endpoint.name !== name) throw new RequestRejected(`components: unknown endpoint "${name}"`);
    if (!isMgetComponentOf(mget.level, endpoint))
      throw new RequestRejected(`components: "${name}" cannot be fetched through component_mget`);
    if (names.indexOf(name) !== index) throw new RequestRejected(`components: "${name}" is named twice`);
    return endpoint;
  });
}

/** Parameters any of the answered endpoints accepts, by name. */
function paramsOf(sections: readonly Endpoint[]): Map<string, Param[]> {
  const byName = new Map<string, Param[]>();
  for (const param of sections.flatMap((endpoint) => endpoint.params)) {
    byName.set(param.name, [...(byName.get(param.name) ?? []), param]);
  }
  return byName;
}

/** Empty strings and nulls count as absent: a CSV column left empty is not a value. */
const isAbsent = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function isScalar(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** What every item of one request is checked against: the level's identifiers and the answered endpoints' parameters. */
interface ItemRules {
  endpoint: Endpoint;
  sections: readonly Endpoint[];
  level: LevelSpec;
  identifierNames: ReadonlySet<string>;
  params: Map<string, Param[]>;
  /** What a complete item carries, as the catalog states it: its identifiers, and its parameters. */
  identifierRequirements: readonly ItemRequirement[];
  paramRequirements: readonly ItemRequirement[];
  /**
   * Strict: a key the spec does not list is a 400, as before. Otherwise it is ignored and
   * collected here, as clients written for the real service send every column they hold.
   */
  strict: boolean;
  ignored: Set<string>;
}

function itemRulesOf(endpoint: Endpoint, sections: readonly Endpoint[], strict: boolean): ItemRules {
  const level = LEVEL_SPECS[endpoint.level];
  const requirements = itemRequirements(endpoint.level, sections);
  return {
    endpoint,
    sections,
    level,
    identifierNames: new Set(level.identifiers.map((identifier) => identifier.name)),
    params: paramsOf(sections),
    identifierRequirements: requirements.filter((requirement) => requirement.kind === 'identifier'),
    paramRequirements: requirements.filter((requirement) => requirement.kind !== 'identifier'),
    strict,
    ignored: new Set(),
  };
}

/**
 * One item checked against the level's identifier rules and the endpoints' parameter rules, all
 * from the catalog; `where` prefixes every message ("item 3" or "query string").
 */
function itemFrom(
  raw: Readonly<Record<string, unknown>>,
  where: string,
  rules: ItemRules,
  sharedParams: Readonly<Record<string, unknown>>,
): RequestItem {
  const { endpoint, level, identifierNames, params, strict, ignored } = rules;
  const reject = (message: string): never => {
    throw new RequestRejected(`${where}: ${message}`);
  };

  for (const key of Object.keys(raw)) {
    if (!identifierNames.has(key) && key !== META.name && !params.has(key)) {
      if (!strict) {
        ignored.add(key);
        continue;
      }
      const hint = key === COMPONENTS ? ' (components goes in the query string)' : '';
      reject(`unknown key "${key}" for ${endpoint.name}${hint}; expected ${[...identifierNames, META.name, ...params.keys()].join(', ')}`);
    }
  }

  const identifiers: Record<string, string> = {};
  const requested: Record<string, unknown> = {};
  for (const identifier of level.identifiers) {
    const value = raw[identifier.name];
    if (value === undefined) continue;
    requested[identifier.name] = value;
    if (isAbsent(value)) continue;
    if (!isScalar(value)) return reject(`${identifier.name} must be a string, got ${JSON.stringify(value)}`);
    const problem = checkIdentifier(identifier, value);
    if (problem) reject(problem);
    identifiers[identifier.name] = String(value).trim();
  }
  const unmetIdentifier = unmetRequirements(rules.identifierRequirements, (name) => Boolean(identifiers[name]))[0];
  if (unmetIdentifier) reject(`${unmetIdentifier.anyOf.join(' or ')} is required`);

  const merged: Record<string, string | number> = {};
  for (const [name, definitions] of params) {
    const value = isAbsent(raw[name]) ? sharedParams[name] : raw[name];
    if (isAbsent(value)) continue;
    if (!isScalar(value)) return reject(`${name} must be a string or a number, got ${JSON.stringify(value)}`);
    for (const param of definitions) {
      const problem = checkParam(param, value);
      if (problem) reject(problem);
    }
    merged[name] = paramValue(definitions[0]!, value);
  }
  const unmetParam = unmetRequirements(rules.paramRequirements, (name) => merged[name] !== undefined)[0];
  if (unmetParam?.kind === 'one-of') reject(oneOfMessage(unmetParam));
  if (unmetParam) reject(`${unmetParam.anyOf[0]!} is required for ${unmetParam.endpoint?.name ?? endpoint.name}`);

  return { identifiers, params: merged, requested, ...(META.name in raw ? { meta: { value: raw[META.name] } } : {}) };
}

function sectionsOf(endpoint: Endpoint, query: URLSearchParams): Endpoint[] {
  return endpoint.mget ? componentsOf(endpoint, query) : [endpoint];
}

/** Query-string values other than components, as one record (a repeated key keeps its last value). */
function queryRecord(query: URLSearchParams): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [key, value] of query) if (key !== COMPONENTS) record[key] = value;
  return record;
}

/** GET: the query string is the one item, its parameters included. */
export function parseGet(endpoint: Endpoint, query: URLSearchParams, strict: boolean): ParsedRequest {
  const sections = sectionsOf(endpoint, query);
  const record = queryRecord(query);
  const rules = itemRulesOf(endpoint, sections, strict);
  return { sections, items: [itemFrom(record, 'query string', rules, {})], ignoredKeys: [...rules.ignored] };
}

/** POST: a JSON array of 1..100 items with identical key sets; parameters in the query string apply to every item. */
export function parsePost(
  endpoint: Endpoint,
  query: URLSearchParams,
  contentType: string | undefined,
  body: string,
  strict: boolean,
): ParsedRequest {
  if (!isJsonContentType(contentType)) {
    throw new RequestRejected(`Content-Type must be application/json, got "${contentType ?? ''}"`);
  }
  const sections = sectionsOf(endpoint, query);
  const shared = queryRecord(query);
  const rules = itemRulesOf(endpoint, sections, strict);
  for (const key of Object.keys(shared)) {
    if (rules.params.has(key)) continue;
    if (!strict) rules.ignored.add(key);
    else throw new RequestRejected(`query string: "${key}" is not a parameter of ${endpoint.name}; POST items go in the body`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new RequestRejected('body is not valid JSON');
  }
  if (!Array.isArray(parsed)) throw new RequestRejected('body must be a JSON array of items');
  if (parsed.length < 1 || parsed.length > MAX_ITEMS_PER_REQUEST) {
    throw new RequestRejected(`body must hold 1 to ${MAX_ITEMS_PER_REQUEST} items, got ${parsed.length}`);
  }
  let firstKeys: string | undefined;
  const items = parsed.map((raw: unknown, index) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new RequestRejected(`item ${index}: must be a JSON object`);
    const keys = keySetOf(raw);
    firstKeys ??= keys;
    if (keys !== firstKeys) {
      throw new RequestRejected(`item ${index}: keys (${keys}) differ from item 0 (${firstKeys}); all items must have the same keys`);
    }
    return itemFrom(raw as Record<string, unknown>, `item ${index}`, rules, shared);
  });
  return { sections, items, ignoredKeys: [...rules.ignored] };
}
