/**
 * Deeper than any chunk the service describes (they nest a handful of levels), shallow enough for
 * every recursive reader of a chunk downstream: JSON.stringify in the writers, the terminal
 * rendering. 100,000 levels overflow their stacks.
 */
export const MAX_CHUNK_DEPTH = 64;

function kind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Whether `root` holds an object or array more than `limit` levels down; a loop, so any depth is measured safely. */
function deeperThan(root: object, limit: number): boolean {
  const values: object[] = [root];
  const depths: number[] = [1];
  while (values.length > 0) {
    const value = values.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    for (const member of Array.isArray(value) ? value : Object.values(value)) {
      if (member !== null && typeof member === 'object') {
        values.push(member as object);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * Why a chunk from a 200 answer cannot be used for its item, or undefined when it can: it must be
 * an object, and one that every writer can walk. A row with a problem is an `error`, not a crash.
 */
export function chunkProblem(chunk: unknown): string | undefined {
  if (chunk === null || typeof chunk !== 'object' || Array.isArray(chunk)) {
    return `the service's answer for this item is ${kind(chunk)}, not an object`;
  }
  return deeperThan(chunk, MAX_CHUNK_DEPTH)
    ? `the service's answer for this item is nested more than ${MAX_CHUNK_DEPTH} levels deep`
    : undefined;
}
