import type { Endpoint, Level } from './types.js';

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
