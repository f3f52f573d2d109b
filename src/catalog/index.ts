import { BLOCK_ENDPOINTS } from './block.js';
import { PROPERTY_ENDPOINTS } from './property.js';
import { nearest } from './nearest.js';
import { addressInfo, blockInfo } from './shapes.js';
import type { Schema } from './schema.js';
import type { Endpoint, Level } from './types.js';

export * from './types.js';
export { LEVEL_SPECS, ALL_IDENTIFIERS, META } from './levels.js';
export { keySetOf } from './key-set.js';
export type { Schema } from './schema.js';

/** The chunk members that describe the item itself, by member name (LevelSpec.infoMember). */
export const INFO_SCHEMAS: Readonly<Record<'address_info' | 'block_info', Schema>> = {
  address_info: addressInfo,
  block_info: blockInfo,
};

/** `property/block_<target>`: every block target callable with property identifiers, same result shape. */
const PROPERTY_BLOCK_FORMS: readonly Endpoint[] = BLOCK_ENDPOINTS.map((blockEndpoint) => ({
  ...blockEndpoint,
  name: `property/block_${blockEndpoint.target}`,
  level: 'property',
  target: `block_${blockEndpoint.target}`,
  description: `${blockEndpoint.description} (by property)`,
  mirrors: blockEndpoint.name,
}));

/** The whole catalog: the single list of endpoints every other part derives from. */
export const ENDPOINTS: readonly Endpoint[] = [...PROPERTY_ENDPOINTS, ...PROPERTY_BLOCK_FORMS, ...BLOCK_ENDPOINTS];

const BY_NAME = new Map(ENDPOINTS.map((endpoint) => [endpoint.name, endpoint]));

/** Accepts `property/value_within_block`, `property/value-within-block` and `v2/property/value`. */
export function canonicalName(name: string): string {
  const trimmed = name.trim().replace(/^\/+|\/+$/g, '').replace(/^v[23]\//, '');
  return trimmed.replace(/-/g, '_').toLowerCase();
}

export function findEndpoint(name: string): Endpoint | undefined {
  return BY_NAME.get(canonicalName(name));
}

export function endpointsAt(level: Level): Endpoint[] {
  return ENDPOINTS.filter((endpoint) => endpoint.level === level);
}

/** Data endpoints a component_mget may name: everything but component_mget itself. */
export function isMgetComponent(endpoint: Endpoint): boolean {
  return !endpoint.mget && endpoint.level === 'property';
}

export function suggestEndpoints(name: string): string[] {
  return nearest(canonicalName(name), [...BY_NAME.keys()]);
}
export { checkIdentifier, checkParam, checkRequireOneOf, paramValue } from './rules.js';
export { stateCode } from './states.js';
