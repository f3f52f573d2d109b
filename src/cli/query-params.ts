import { ENDPOINTS } from '../catalog/index.js';
import { UsageError } from '../errors/index.js';
import type { QueryTarget } from '../model/query-target.js';
import { optionKey } from './options.js';
import type { QueryOptions } from './commands/query-options.js';

/** Named parameter flags and --param, as one map of catalog names to values. */
export function fixedParams(target: QueryTarget, options: QueryOptions): Record<string, string> {
  const params: Record<string, string> = { ...options.param };
  // `call .../component_mget --param components=...`: the list goes in the query string, once.
  if (target.query.components !== undefined) delete params.components;
  for (const endpoint of target.paramEndpoints) {
    for (const param of endpoint.params) {
      const value = options[optionKey(param.name)];
      if (value !== undefined && param.name !== 'components')
        params[param.name] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  // mget declares every component's parameter flags: one none of the named components takes would
  // be dropped without a word.
  const taken = new Set(target.paramEndpoints.flatMap((endpoint) => endpoint.params.map((param) => param.name)));
  for (const endpoint of ENDPOINTS) {
    for (const param of endpoint.params) {
      if (taken.has(param.name) || options[optionKey(param.name)] === undefined) continue;
      const takers = ENDPOINTS.filter(
        (candidate) => candidate.level === target.level && candidate.params.some((p) => p.name === param.name),
      ).map((taker) => taker.name);
      const named = takers.length > 3 ? `${takers.slice(0, 3).join(', ')}...` : takers.join(', ') || endpoint.name;
      throw new UsageError(
        `--${param.name.replace(/_/g, '-')} is a parameter of ${named}, ` +
          `which this command does not call; name one of them or drop the flag`,
      );
    }
  }
  return params;
}
