import type { QueryTarget } from '../model/query-target.js';
import type { ConnectionOptions } from './connect.js';
import { optionKey } from './options.js';

/** What every query command receives from its flags, one-off or batch. */
export interface QueryOptions extends ConnectionOptions {
  json?: boolean;
  /** --max-wait in ms; absent: DEFAULT_MAX_WAIT_MS for the mode. */
  maxWait?: number;
  maxRetries: number;
  input?: string;
  param?: Record<string, string>;
  [flag: string]: unknown;
}

/** Named parameter flags and --param, as one map of catalog names to values. */
export function fixedParams(target: QueryTarget, options: QueryOptions): Record<string, string> {
  const params: Record<string, string> = { ...options.param };
  for (const endpoint of target.paramEndpoints) {
    for (const param of endpoint.params) {
      const value = options[optionKey(param.name)];
      if (value !== undefined && param.name !== 'components') params[param.name] = String(value);
    }
  }
  return params;
}
