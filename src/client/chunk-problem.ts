/**
 * Deeper than any chunk the service describes (they nest a handful of levels), shallow enough for
 * every recursive reader of a chunk downstream: JSON.stringify in the writers, the terminal
 * rendering. 100,000 levels overflow their stacks.
 */
const MAX_CHUNK_DEPTH = 64;

function kind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * Whether `value` holds an object or array more than `levels` levels down, `value` being the
 * first. Each call goes one level down and the walk stops at `levels`, so any depth is measured
 * without overflowing the stack; and nothing is allocated (a walk with its own stack and
 * Object.values made 0.6 KB of garbage a row). A chunk is parsed JSON: it inherits no members.
 */
function deeperThan(value: object, levels: number): boolean {
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const member: unknown = value[i];
      if (member !== null && typeof member === 'object' && deeperThan(member, levels - 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== null && typeof member === 'object' && deeperThan(member, levels - 1)) return true;
  }
  return false;
}

/**
 * Why a chunk from a 200 answer cannot be used for its item, or undefined when it can: there must
 * be one, an object, and one that every writer can walk. A row with a problem is an `error`, not a crash.
 */
export function chunkProblem(chunk: unknown): string | undefined {
  // Not a JSON value: an item left without a chunk of its own (chunksForItems).
  if (chunk === undefined) return "the service's answer holds no chunk that can be told to be this item's";
  if (chunk === null || typeof chunk !== 'object' || Array.isArray(chunk)) {
    return `the service's answer for this item is ${kind(chunk)}, not an object`;
  }
  return deeperThan(chunk, MAX_CHUNK_DEPTH)
    ? `the service's answer for this item is nested more than ${MAX_CHUNK_DEPTH} levels deep`
    : undefined;
}
