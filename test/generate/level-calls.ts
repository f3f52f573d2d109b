import { ENDPOINTS, LEVELS } from '../../src/catalog/index.js';
import { literal, memberKey } from './schema-type.js';

/**
 * src/library/level-calls.ts: the client's calls by level and target (`client.property.value`),
 * written out one by one from the catalog, so that the compiler checks the client it builds
 * against its declared type (client-types.ts Levels): every endpoint there, each with its own
 * item and chunk types, and nothing else. The endpoints are ResultTypes' (every one with a
 * result: an mget is `client.mget`).
 */
export function levelCallsSource(header: string): string {
  const levels = LEVELS.map((level) => {
    const calls = ENDPOINTS.filter((endpoint) => endpoint.level === level && endpoint.result).map(
      (endpoint) => `${memberKey(endpoint.name.slice(level.length + 1))}: call(${literal(endpoint.name)}),`,
    );
    return `${level}: {${calls.join('\n')}},`;
  });
  return `${header}

import type { Levels, MakeCall } from './client-types.js';

/** Every endpoint's call, by level and target, each made by \`call\` from the endpoint's name. */
export function levelCalls(call: MakeCall): Levels {
  return {
${levels.join('\n')}
  };
}
`;
}
