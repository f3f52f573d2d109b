import type { Chunk } from './chunk.js';

/**
 * What became of an item: `_status` in the output. `not_sent` is a row a stopped run never sent,
 * written only where an answered row must follow it and no store keeps that answer (--no-store): a
 * rerun sends it. It is not a failure of the row.
 */
export const STATUSES = ['ok', 'partial', 'no_content', 'invalid_input', 'error', 'not_sent'] as const;
export type Status = (typeof STATUSES)[number];

/**
 * A member the value itself holds. A chunk is whatever the server sent: any member may be null, a
 * number or a list, and an inherited member (`constructor`, `toString`) is not data.
 */
function own(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * The status of an answered item, from its sections' api_codes: `ok` when every section is 0,
 * `no_content` when none is (or the address did not resolve), `partial` in between. A section the
 * chunk lacks, or an api_code other than 0, counts as no content: the data is not there. Safe for
 * any value, an object of any shape included.
 */
export function statusOf(chunk: Chunk, sectionKeys: readonly string[]): Status {
  if (own(own(own(chunk, 'address_info'), 'status'), 'match') === false) return 'no_content';
  let ok = 0;
  for (const key of sectionKeys) if (own(own(chunk, key), 'api_code') === 0) ok += 1;
  if (ok === sectionKeys.length) return 'ok';
  return ok === 0 ? 'no_content' : 'partial';
}
