import type { Chunk } from './chunk.js';

/** Where a service may echo meta inside an info member (`address_info`, `block_info`...), besides the chunk's top level. */
const NESTED_META_PATHS: readonly (readonly string[])[] = [['meta'], ['status', 'requested_item', 'meta']];

/** A JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The paths in the chunk where the service echoed meta: the top level, or inside an info member
 * (docs/reference.md, "where the echoed meta sits").
 */
export function metaPaths(chunk: Chunk): string[][] {
  const paths: string[][] = 'meta' in chunk ? [['meta']] : [];
  for (const [member, value] of Object.entries(chunk)) {
    if (!member.endsWith('_info') || !isObject(value)) continue;
    for (const path of NESTED_META_PATHS) {
      let at: unknown = value;
      for (const segment of path.slice(0, -1)) at = isObject(at) ? at[segment] : undefined;
      if (isObject(at) && path[path.length - 1]! in at) paths.push([member, ...path]);
    }
  }
  return paths;
}
