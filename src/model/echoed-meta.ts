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
  // for...in and an index, not Object.entries and slice: this runs for every row a rerun writes
  // from the store, and those arrays were 2% of its main thread.
  for (const member in chunk) {
    const value = chunk[member];
    if (!member.endsWith('_info') || !isObject(value)) continue;
    for (const path of NESTED_META_PATHS) {
      let at: unknown = value;
      for (let i = 0; i < path.length - 1; i++) at = isObject(at) ? at[path[i]!] : undefined;
      if (isObject(at) && path[path.length - 1]! in at) paths.push([member, ...path]);
    }
  }
  return paths;
}
