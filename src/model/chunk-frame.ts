import type { Chunk } from './chunk.js';

/**
 * A chunk without its sections: its other members in the order the service sent them, so that a
 * chunk rebuilt from stored sections is the one the service sent, byte for byte once written.
 * `[name, value]` is a member kept as received (address_info, block_info, anything new, the echoed
 * meta: keptParts); `["meta"]`, in a frame an earlier version kept, marks where the echoed meta went
 * (joinChunk puts the row's own there); `null` marks where the sections went.
 */
export type Frame = ([name: string, value: unknown] | [name: 'meta'] | null)[];

/** Only answers are kept: api_code 0 (data) and 204 (no content). Anything else is an error. */
const KEPT_CODES: ReadonlySet<unknown> = new Set([0, 204]);

function isKeptSection(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    Object.hasOwn(value, 'api_code') &&
    KEPT_CODES.has((value as { api_code: unknown }).api_code)
  );
}

/**
 * The chunk for `endpoints` (sections given in that order), with the row's own meta where the
 * service echoes it; a row without meta gets none, as the service echoes only what was sent.
 * Where no meta was ever seen, it goes last, as deduplication places it (chunkForRow).
 */
export function joinChunk(frame: Frame, endpoints: readonly string[], sections: readonly unknown[], meta: unknown): Chunk {
  const entries: [string, unknown][] = [];
  let metaPlaced = false;
  for (const entry of frame) {
    if (entry === null) endpoints.forEach((name, i) => entries.push([name, sections[i]]));
    else if (entry.length === 2) entries.push(entry);
    else if (meta !== undefined) {
      entries.push(['meta', meta]);
      metaPlaced = true;
    }
  }
  if (meta !== undefined && !metaPlaced) entries.push(['meta', meta]);
  // fromEntries defines own members: a member named __proto__ stays data, as JSON.parse made it.
  return Object.fromEntries(entries);
}

/**
 * The chunk for every section asked (`members`, in request order) from the chunk that answered some
 * of them and the sections kept from earlier answers (`kept`, by member): the answer's other members
 * as it sent them (its address_info is the newest), the sections together in request order where the
 * answer had its own. An mget that sent only the components an item lacked is written as the mget of
 * them all would have been.
 */
export function withSections(answer: Chunk, members: readonly string[], kept: Readonly<Record<string, unknown>>): Chunk {
  const asked = new Set(members);
  const sections = members.flatMap((member): [string, unknown][] => {
    if (Object.hasOwn(kept, member)) return [[member, kept[member]]];
    return Object.hasOwn(answer, member) ? [[member, answer[member]]] : [];
  });
  const entries: [string, unknown][] = [];
  let placed = false;
  for (const [name, value] of Object.entries(answer)) {
    if (!asked.has(name)) entries.push([name, value]);
    else if (!placed) {
      entries.push(...sections);
      placed = true;
    }
  }
  if (!placed) entries.push(...sections);
  return Object.fromEntries(entries);
}

/**
 * The parts of an answered chunk worth keeping: its frame, and each asked section (`members`, in
 * request order) that is an answer (api_code 0 or 204; undefined otherwise: an error section is
 * never kept). The frame keeps every other member as received, echoed meta included (a row's own
 * meta is put back on the way out), with `null` where the first section was.
 */
export function keptParts(chunk: Chunk, members: readonly string[]): { frame: Frame; sections: unknown[] } {
  const frame: Frame = [];
  let sectionsAt = false;
  for (const [name, value] of Object.entries(chunk)) {
    if (!members.includes(name)) frame.push([name, value]);
    else if (!sectionsAt) {
      frame.push(null);
      sectionsAt = true;
    }
  }
  if (!sectionsAt) frame.push(null);
  return { frame, sections: members.map((member) => (isKeptSection(chunk[member]) ? chunk[member] : undefined)) };
}
