import { BEYOND_SPEC_BLOCK, BEYOND_SPEC_MSA, BEYOND_SPEC_ZIP, levelMget, propertyLtv } from './beyond-spec.js';
import { BLOCK_ENDPOINTS } from './block.js';
import { PROPERTY_ENDPOINTS } from './property.js';
import { nearest } from './nearest.js';
import { addressInfo, blockInfo, msaInfo, zipcodeInfo } from './shapes.js';
import type { Schema } from './schema.js';
import type { Endpoint, InfoMember, Level } from './types.js';

export * from './types.js';
export { LEVEL_SPECS, ALL_IDENTIFIERS, META } from './levels.js';
export { keySetOf } from './key-set.js';
export { MAX_ITEMS_PER_REQUEST } from './request-limits.js';
export type { Schema } from './schema.js';

/** The chunk members that describe the item itself, by member name (LevelSpec.infoMember). */
export const INFO_SCHEMAS: Readonly<Record<InfoMember, Schema>> = {
  address_info: addressInfo,
  block_info: blockInfo,
  zipcode_info: zipcodeInfo,
  msa_info: msaInfo,
};

const BLOCK_TARGETS = [...BLOCK_ENDPOINTS, ...BEYOND_SPEC_BLOCK];

/** The target of a `<level>/<target>` name, as a type. */
type TargetOf<Name extends string> = Name extends `${string}/${infer Target}` ? Target : never;

/**
 * `property/block_<target>`, `property/zip_<target>`, `property/msa_<target>`: every area target
 * callable with property identifiers, answered for the property's area, same result shape.
 */
const propertyForms = <Prefix extends 'block' | 'zip' | 'msa', AreaName extends string>(
  prefix: Prefix,
  areaEndpoints: readonly Endpoint<AreaName>[],
): Endpoint<`property/${Prefix}_${TargetOf<AreaName>}`>[] =>
  areaEndpoints.map((areaEndpoint) => ({
    ...areaEndpoint,
    name: `property/${prefix}_${areaEndpoint.target as TargetOf<AreaName>}` as const,
    level: 'property',
    target: `${prefix}_${areaEndpoint.target}`,
    description: `${areaEndpoint.description} (by property)`,
    mirrors: areaEndpoint.name,
  }));

const PROPERTY_MGET = PROPERTY_ENDPOINTS.find((endpoint) => endpoint.mget)!;

const CATALOG = [
  ...PROPERTY_ENDPOINTS,
  propertyLtv(PROPERTY_ENDPOINTS.find((endpoint) => endpoint.name === 'property/ltv_details')!),
  ...propertyForms('block', BLOCK_TARGETS),
  ...propertyForms('zip', BEYOND_SPEC_ZIP),
  ...propertyForms('msa', BEYOND_SPEC_MSA),
  ...BLOCK_TARGETS,
  levelMget(PROPERTY_MGET, 'block'),
  ...BEYOND_SPEC_ZIP,
  levelMget(PROPERTY_MGET, 'zip'),
  ...BEYOND_SPEC_MSA,
  levelMget(PROPERTY_MGET, 'msa'),
];

/** The name of an endpoint of the catalog (`property/value`, `block/crime`...), derived from its data. */
export type EndpointName = (typeof CATALOG)[number]['name'];

/** The whole catalog: the single list of endpoints every other part derives from; the spec's first at each level. */
export const ENDPOINTS: readonly Endpoint<EndpointName>[] = CATALOG;

const BY_NAME = new Map<string, Endpoint<EndpointName>>(ENDPOINTS.map((endpoint) => [endpoint.name, endpoint]));

/** Whether a name, exactly as written, is a catalog endpoint's. */
export function isEndpointName(name: string): name is EndpointName {
  return BY_NAME.has(name);
}

/** Accepts `property/value_within_block`, `property/value-within-block` and `v2/property/value`. */
export function canonicalName(name: string): string {
  const trimmed = name
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .replace(/^v[23]\//, '');
  return trimmed.replace(/-/g, '_').toLowerCase();
}

export function findEndpoint(name: string): Endpoint<EndpointName> | undefined {
  return BY_NAME.get(canonicalName(name));
}

export function endpointsAt(level: Level): Endpoint<EndpointName>[] {
  return ENDPOINTS.filter((endpoint) => endpoint.level === level);
}

/** Data endpoints property/component_mget may name: every property endpoint but component_mget itself. */
export function isMgetComponent(endpoint: Endpoint): boolean {
  return isMgetComponentOf('property', endpoint);
}

/** Data endpoints the component_mget of a level may name: that level's, but component_mget itself. */
export function isMgetComponentOf(level: Level, endpoint: Endpoint): boolean {
  return !endpoint.mget && endpoint.level === level;
}

export function suggestEndpoints(name: string): string[] {
  return nearest(canonicalName(name), [...BY_NAME.keys()]);
}
export {
  checkIdentifier,
  checkParam,
  itemRequirements,
  oneOfMessage,
  paramValue,
  unmetRequirements,
  type ItemRequirement,
} from './rules.js';
export { stateCode } from './states.js';
