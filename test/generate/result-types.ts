import {
  ENDPOINTS,
  INFO_SCHEMAS,
  LEVELS,
  LEVEL_SPECS,
  META,
  itemRequirements,
  type Endpoint,
  type Level,
  type Param,
  type Schema,
} from '../../src/catalog/index.js';
import { addressInfoType } from './address-info-type.js';
import { enumDeclarations, enumType } from './enum-types.js';
import { docComment, literal, objectType, schemaType, type Member } from './schema-type.js';

/**
 * The library's result, info, item and parameter types, rendered from the catalog: the catalog is
 * the single source of truth, and src/library/result-types.ts is this rendering checked in, so
 * that the library needs no catalog at run time and a catalog change shows in the diff of its types.
 */

/** No members: `{}` would read as "anything but null", which lint refuses; `object` adds nothing to an intersection. */
const NOTHING = 'object';

/**
 * An object type whose members are optional but for what `requirements` ask: a lone name is
 * required; "at least one of" several adds a union of objects, each requiring one of them.
 */
function requiringType(members: readonly Member[], requirements: readonly (readonly string[])[]): string {
  if (members.length === 0) return NOTHING;
  const required = new Set(requirements.filter((anyOf) => anyOf.length === 1).flat());
  const typeOf = (name: string) => members.find((member) => member.name === name)!.type;
  const atLeastOne = requirements
    .filter((anyOf) => anyOf.length > 1)
    .map((anyOf) => `(${anyOf.map((name) => objectType([{ name, type: typeOf(name) }])).join(' | ')})`);
  return [objectType(members.map((member) => ({ ...member, optional: !required.has(member.name) }))), ...atLeastOne].join(' & ');
}

function itemType(level: Level): string {
  const { identifiers } = LEVEL_SPECS[level];
  // The spec shows no identifiers for `reports`: every key given is sent as it is (`propdata call`).
  if (identifiers.length === 0) return 'Record<string, string>';
  const members = [...identifiers, META].map(({ name, description }) => ({ name, type: 'string', doc: description }));
  const requirements = itemRequirements(level, []);
  return requiringType(
    members,
    requirements.map((requirement) => requirement.anyOf),
  );
}

function paramType(param: Param): string {
  if (param.enum) return enumType(param.enum);
  if (param.allowed) return param.allowed.join(' | ');
  return param.type === 'int' || param.type === 'number' ? 'number' : 'string';
}

function paramsType(endpoint: Endpoint): string {
  // An mget's parameters are its components'; its own, `components`, names the endpoints called.
  if (endpoint.mget) return NOTHING;
  const members = endpoint.params.map((param) => ({ name: param.name, type: paramType(param), doc: param.description }));
  const requirements = itemRequirements(endpoint.level, [endpoint]).filter((requirement) => requirement.kind !== 'identifier');
  return requiringType(
    members,
    requirements.map((requirement) => requirement.anyOf),
  );
}

/**
 * Each endpoint's result, as a member of ResultTypes. A property form or alias
 * (`property/block_crime`, `property/ltv`) has the result of the endpoint it mirrors, by name; a
 * shape the catalog shares is written once (schema-type.ts Place), and so is a whole result an
 * earlier endpoint has (namedOnce).
 */
function resultMembers(endpoints: readonly Endpoint[]): Member[] {
  const written = new Map<Schema, string>();
  const members = endpoints.map((endpoint) => ({
    name: endpoint.name,
    doc: endpoint.description,
    type: endpoint.mirrors
      ? `ResultTypes[${literal(endpoint.mirrors)}]`
      : schemaType(endpoint.result!, { path: `ResultTypes[${literal(endpoint.name)}]`, written }),
  }));
  return namedOnce(members, 'ResultTypes');
}

/**
 * Members whose type an earlier member already spelled out name that member instead
 * (`'block/histogram_beds': ParamTypes['block/value_distribution']`): one declaration a shape.
 * A one-line type (`object`, `boolean`) is shorter than a reference to it.
 */
function namedOnce(members: readonly Member[], owner: string): Member[] {
  const first = new Map<string, string>();
  return members.map((member) => {
    const earlier = first.get(member.type);
    if (earlier !== undefined && member.type.includes('\n')) return { ...member, type: `${owner}[${literal(earlier)}]` };
    if (earlier === undefined) first.set(member.type, member.name);
    return member;
  });
}

/** The generated LevelOf reads an endpoint's level from its name: true of every catalog endpoint, checked here. */
function checkNamesCarryLevels(): void {
  const misnamed = ENDPOINTS.filter((endpoint) => !endpoint.name.startsWith(`${endpoint.level}/`));
  if (misnamed.length > 0) {
    const names = misnamed.map((endpoint) => `${endpoint.name} (level ${endpoint.level})`).join(', ');
    throw new Error(`LevelOf<Name> takes the level from the name, which is not the level of ${names}: emit a name-to-level map instead`);
  }
}

const declaration = (doc: string, head: string, members: readonly Member[]) => `${docComment(doc)}${head} ${objectType(members)}`;

/** src/library/result-types.ts as the catalog makes it now, before formatting; `header` is the generated files' first lines. */
export function resultTypesSource(header: string): string {
  checkNamesCarryLevels();
  const infoTypes = Object.keys(INFO_SCHEMAS).map((name) => ({
    name,
    type: name === 'address_info' ? addressInfoType() : schemaType(INFO_SCHEMAS[name as keyof typeof INFO_SCHEMAS]),
  }));
  const levelInfo = LEVELS.map((level) => {
    const member = LEVEL_SPECS[level].infoMember;
    return { name: level, type: member ? objectType([{ name: member, type: `InfoTypes[${literal(member)}]` }]) : NOTHING };
  });
  const blocks = [
    header,
    docComment(
      "One endpoint's section of a chunk: api_code 0 with the result, or 204 (no content, not charged) without one.\n" +
        'Other codes are errors, never handed over as sections. api_code_description (`ok`, `no content`) is not relied on.',
    ) +
      'export type Section<Result> =\n' +
      '  | { api_code: 0; api_code_description: string; result: Result }\n' +
      '  | { api_code: 204; api_code_description: string; result?: null };',
    declaration(
      "Each catalog endpoint's result, by endpoint name (component_mget has no section of its own).",
      'export interface ResultTypes',
      resultMembers(ENDPOINTS.filter((endpoint) => endpoint.result)),
    ),
    'export type EndpointName = keyof ResultTypes;',
    declaration('The chunk members that describe the item itself.', 'export interface InfoTypes', infoTypes),
    declaration("Each level's info member in a chunk; a level without one has none.", 'export interface LevelInfo', levelInfo),
    declaration(
      "An item to ask about, by level: its identifiers, and meta, echoed in the item's chunk.",
      'export interface ItemTypes',
      LEVELS.map((level) => ({ name: level, type: itemType(level) })),
    ),
    declaration(
      "Each endpoint's parameters, by endpoint name.",
      'export interface ParamTypes',
      namedOnce(
        ENDPOINTS.map((endpoint) => ({ name: endpoint.name, type: paramsType(endpoint) })),
        'ParamTypes',
      ),
    ),
    docComment('The level of an endpoint, from its name (`property/value`: `property`).') +
      'export type LevelOf<Name extends string> = Name extends `${infer Level extends keyof LevelInfo}/${string}` ? Level : never;',
    docComment(
      'The chunk answered for one item by the endpoints `Names` (one, or the components of an mget, all of one level):\n' +
        "the level's info member, one section per endpoint, and the item's meta when it carried one. The meta is typed\n" +
        'where the sandbox puts it, at the top level; a service that echoes it inside the info member has it there too.',
    ) +
      'export type ResultChunk<Names extends EndpointName> = LevelInfo[LevelOf<Names>] &\n' +
      '  { [Name in Names]: Section<ResultTypes[Name]> } & { meta?: string };',
    ...enumDeclarations(),
  ];
  return `${blocks.join('\n\n')}\n`;
}
