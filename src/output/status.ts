import type { Chunk, Status } from './record.js';

function apiCode(section: unknown): unknown {
  return section && typeof section === 'object' ? (section as { api_code?: unknown }).api_code : undefined;
}

/**
 * The status of an answered item, from its sections' api_codes: `ok` when every section is 0,
 * `no_content` when none is (or the address did not resolve), `partial` in between. A section the
 * chunk lacks, or an api_code other than 0, counts as no content: the data is not there.
 */
export function statusOf(chunk: Chunk, sectionKeys: readonly string[]): Status {
  const addressInfo = chunk.address_info as { status?: { match?: unknown } } | undefined;
  if (addressInfo?.status?.match === false) return 'no_content';
  let ok = 0;
  for (const key of sectionKeys) if (apiCode(chunk[key]) === 0) ok += 1;
  if (ok === sectionKeys.length) return 'ok';
  return ok === 0 ? 'no_content' : 'partial';
}
