import type { Frame } from '../model/chunk-frame.js';
import type { FoundItem, ItemRef, KeptAnswer, KeptSection, SectionRef } from './store-api.js';

/**
 * How every driver keeps an answer: the frame and each section as the JSON text made from what the
 * service sent (never a database's own JSON type, which would reorder the members and change the
 * records written from it), and how those texts are read back.
 */

/** One answer ready to write: texts made before any lock is taken, so that a lock is held for the writes alone. */
export interface EncodedAnswer {
  identity: string;
  frame: string;
  sections: { endpoint: string; params: string; body: string }[];
}

/** What is kept of an answer: its frame, and each section that has an answer's shape (one that has not would be read back as damaged). */
export function encode(answer: KeptAnswer): EncodedAnswer {
  return {
    identity: answer.item,
    frame: JSON.stringify(answer.frame),
    sections: answer.sections
      .filter(({ body }) => isAnswerSection(body))
      .map(({ ref, body }) => ({ endpoint: ref.endpoint, params: ref.params, body: JSON.stringify(body) })),
  };
}

/** A stored text read back (with the text), or undefined when it is not the JSON it was written as (damaged). */
export function decode(stored: unknown): { value: unknown; text: string } | undefined {
  const text = typeof stored === 'string' ? stored : Buffer.isBuffer(stored) ? stored.toString() : undefined;
  if (text === undefined) return undefined;
  try {
    return { value: JSON.parse(text) as unknown, text };
  } catch {
    return undefined;
  }
}

/**
 * Whether a section has the shape an answer has (spec: Response format): an object whose api_code
 * is 0 with a result, or 204 (no content, nothing billed). Anything else, though it is JSON (`[]`,
 * `{"api_code":"zero"}`, a result gone), was changed since it was kept: it is not an answer, and
 * served as one it would turn an `ok` row into something else without a word (PROTOCOL.md, rule 2).
 */
function isAnswerSection(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const { api_code: code, result } = body as { api_code?: unknown; result?: unknown };
  return code === 204 || (code === 0 && result !== undefined && result !== null);
}

/** A kept section read back: its body when it is JSON with the shape of an answer, else undefined (damaged). */
export function decodeSection(stored: unknown): { value: unknown; text: string } | undefined {
  const decoded = decode(stored);
  return decoded && isAnswerSection(decoded.value) ? decoded : undefined;
}

/**
 * Whether a frame has the shape every frame is kept with (chunk-frame.ts, keptParts): an array of
 * the chunk's other members, each `[name, value]` (or an earlier version's `["meta"]`), with one
 * `null` where the sections go. Anything else, though it is JSON (`[]`, `{}`), was changed since it
 * was kept: joined with intact sections it would make a row without its address, or without its
 * sections (`no_content`), and no word said (PROTOCOL.md, rule 2).
 */
function isFrame(value: unknown): value is Frame {
  if (!Array.isArray(value)) return false;
  let places = 0;
  for (const entry of value as unknown[]) {
    if (entry === null) places += 1;
    else if (!Array.isArray(entry) || typeof entry[0] !== 'string' || (entry.length !== 2 && !(entry.length === 1 && entry[0] === 'meta')))
      return false;
  }
  return places === 1;
}

/** A kept frame read back: the frame when it is JSON with a frame's shape, else undefined (damaged). */
export function decodeFrame(stored: unknown): { value: Frame; text: string } | undefined {
  const decoded = decode(stored);
  return decoded && isFrame(decoded.value) ? { value: decoded.value, text: decoded.text } : undefined;
}

/** An item of which nothing is found (`damaged`: of its sections, how many were kept but unreadable). */
export const nothingFound = (ref: ItemRef, damaged = 0): FoundItem => ({ sections: ref.sections.map(() => undefined), damaged });

/** A kept section as a driver's query returns it, fresh already (its arrival at or after freshFrom). */
export interface KeptRow {
  at: number;
  body: unknown;
}

/**
 * One item as found: each section asked (`rowOf` gives its kept row, fresh, if any), in order,
 * undefined when missing or unreadable, and the item's frame when any section is returned. Without a
 * readable frame no section can be put back in a chunk: each then counts as damaged.
 */
export function foundItem(
  asked: readonly SectionRef[],
  frame: unknown,
  rowOf: (ref: SectionRef, i: number) => KeptRow | undefined,
): FoundItem {
  const sections: (KeptSection | undefined)[] = asked.map(() => undefined);
  let damaged = 0;
  let found = 0;
  asked.forEach((ref, i) => {
    const row = rowOf(ref, i);
    if (!row) return;
    const body = decodeSection(row.body);
    // A time that is no whole number of milliseconds (text written over it) dates nothing: SQLite
    // compares text above every number, so it would pass for fresh forever.
    if (!body || !Number.isSafeInteger(row.at)) {
      damaged += 1;
      return;
    }
    sections[i] = { body: body.value, at: row.at };
    found += 1;
  });
  if (found === 0) return { sections, damaged };
  const decoded = decodeFrame(frame);
  if (!decoded) return { sections: asked.map(() => undefined), damaged: damaged + found };
  return { frame: decoded.value, sections, damaged };
}
