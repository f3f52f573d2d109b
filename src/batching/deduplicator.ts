import type { Chunk } from '../model/chunk.js';
import { metaPaths } from '../model/echoed-meta.js';
import type { Status } from '../model/status.js';
import type { PendingItem, SendableItem } from './batch.js';
import { RecentAnswers } from './recent-answers.js';
import { chunkAt, type ResponseText } from './response-text.js';

/** What to do with a row: send it, wait for an identical item already on its way, or reuse an answer. */
export type DedupeDecision = { kind: 'send'; pending: PendingItem } | { kind: 'joined' } | { kind: 'answered'; answer: Answer };

/** A successful answer worth reusing: the chunk and the status it gave its row. */
export interface Answer {
  chunk: Chunk;
  status: Status;
}

/**
 * An answer as remembered: where its chunk comes from until it is reused (the text of its response),
 * the chunk from then on. Only answers bought in this run are: a row the store answered whole is
 * forgotten as soon as it is written (answeredByStore), and a repeat of it is looked up there again.
 * Remembering even that the store had answered it (to count a repeat as deduplication's) kept a
 * string and an entry a row alive for 5,000 rows: a tenth of a rerun's time, most of it the
 * collector's (BENCHMARKS.md, storeSpeed).
 */
interface Remembered {
  status: Status;
  chunk: Chunk | undefined;
  from: ResponseText | undefined;
  index: number;
}

/**
 * Identical items (same identifiers and parameters; meta aside, since it is only echoed) are sent
 * once per run. Items on their way are always matched; answers are remembered for `capacity`
 * distinct items only, so that memory stays flat however long the input is: when room is needed,
 * the answer used least recently goes.
 */
export class Deduplicator {
  readonly #known: RecentAnswers<PendingItem, Remembered>;
  saved = 0;

  constructor(capacity: number) {
    this.#known = new RecentAnswers(capacity);
  }

  static keyOf(item: SendableItem['item']): string {
    // Most items carry no meta: copying each one to leave meta out would be garbage for nothing.
    if (item.meta === undefined) return JSON.stringify(item);
    const { meta: _meta, ...identity } = item;
    return JSON.stringify(identity);
  }

  decide(prepared: SendableItem): DedupeDecision {
    const key = Deduplicator.keyOf(prepared.item);
    const known = this.#known.get(key);
    if (known?.held) {
      known.held.duplicates.push(prepared);
      this.saved += 1;
      return { kind: 'joined' };
    }
    const remembered = known?.value;
    if (remembered) {
      this.saved += 1;
      this.#known.use(known);
      remembered.chunk ??= chunkAt(remembered.from!, remembered.index);
      remembered.from = undefined;
      return { kind: 'answered', answer: { chunk: remembered.chunk, status: remembered.status } };
    }
    const fresh: PendingItem = { prepared, duplicates: [], key };
    this.#known.hold(key, fresh);
    return { kind: 'send', pending: fresh };
  }

  /** The store answered the item whole: it is no longer on its way, and nothing of it is remembered (Remembered). */
  answeredByStore(pending: PendingItem): void {
    this.#known.settle(pending.key ?? Deduplicator.keyOf(pending.prepared.item), undefined);
  }

  /**
   * The item's answer arrived (or none, when it failed: a later identical row tries again). With
   * the text of the response it came in (`from`, where it is chunk `index`), the text is what is
   * remembered (ResponseText says why).
   */
  settle(pending: PendingItem, answer: Answer | undefined, from?: ResponseText, index = 0): void {
    const key = pending.key ?? Deduplicator.keyOf(pending.prepared.item);
    if (!answer) {
      this.#known.settle(key, undefined);
      return;
    }
    this.#known.settle(
      key,
      from
        ? { status: answer.status, chunk: undefined, from, index }
        : { status: answer.status, chunk: answer.chunk, from: undefined, index },
    );
  }
}

/**
 * A copy of `object` with the member at `path` set to `meta` (removed when `meta` is undefined),
 * in the same member order; only the objects along the path are copied.
 */
function withMetaAt(object: Record<string, unknown>, path: readonly string[], meta: unknown): Record<string, unknown> {
  const [name, ...rest] = path as [string, ...string[]];
  const entries: [string, unknown][] = [];
  for (const [member, value] of Object.entries(object)) {
    if (member !== name) entries.push([member, value]);
    else if (rest.length > 0) entries.push([member, withMetaAt(value as Record<string, unknown>, rest, meta)]);
    else if (meta !== undefined) entries.push([member, meta]);
  }
  return Object.fromEntries(entries);
}

/**
 * The chunk as this row would have received it: the same data with its own meta echoed where the
 * service echoed the sent meta (the top level, `<info>.meta` or `<info>.status.requested_item.meta`),
 * in the member order the service used, so output matches a run without deduplication. A row
 * without meta gets none there. Where the answer echoed no meta at all, the row's goes last at
 * the top level.
 */
export function chunkForRow(chunk: Chunk, row: SendableItem): Chunk {
  return chunkWithMeta(chunk, row.item.meta);
}

/** chunkForRow for a row whose meta is `meta`. */
export function chunkWithMeta(chunk: Chunk, meta: unknown): Chunk {
  const paths = metaPaths(chunk);
  if (paths.length === 0) return meta === undefined ? { ...chunk } : { ...chunk, meta };
  let copy: Record<string, unknown> = chunk;
  for (const path of paths) copy = withMetaAt(copy, path, meta);
  return copy;
}
