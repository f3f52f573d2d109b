import type { Chunk } from '../model/chunk.js';
import type { Status } from '../model/status.js';
import type { PendingItem, SendableItem } from './batch.js';

/** What to do with a row: send it, wait for an identical item already on its way, or reuse an answer. */
export type DedupeDecision = { kind: 'send'; pending: PendingItem } | { kind: 'joined' } | { kind: 'answered'; answer: Answer };

/** A successful answer worth reusing: the chunk and the status it gave its row. */
export interface Answer {
  chunk: Chunk;
  status: Status;
}

/**
 * Identical items (same identifiers and parameters; meta aside, since it is only echoed) are sent
 * once per run. Items on their way are always matched; answers are remembered for `capacity`
 * distinct items only, so that memory stays flat however long the input is: when room is needed,
 * the answer used least recently goes (a Map keeps insertion order, and a reused answer is moved
 * to its end).
 */
export class Deduplicator {
  readonly #pending = new Map<string, PendingItem>();
  readonly #answers = new Map<string, Answer>();
  readonly #capacity: number;
  saved = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  static keyOf(item: SendableItem['item']): string {
    // Most items carry no meta: copying each one to leave meta out would be garbage for nothing.
    if (item.meta === undefined) return JSON.stringify(item);
    const { meta: _meta, ...identity } = item;
    return JSON.stringify(identity);
  }

  decide(prepared: SendableItem): DedupeDecision {
    const key = Deduplicator.keyOf(prepared.item);
    const pending = this.#pending.get(key);
    if (pending) {
      pending.duplicates.push(prepared);
      this.saved += 1;
      return { kind: 'joined' };
    }
    const answer = this.#answers.get(key);
    if (answer) {
      this.#answers.delete(key);
      this.#answers.set(key, answer);
      this.saved += 1;
      return { kind: 'answered', answer };
    }
    const fresh: PendingItem = { prepared, duplicates: [], key };
    this.#pending.set(key, fresh);
    return { kind: 'send', pending: fresh };
  }

  /** The item's answer arrived (or none, when it failed: a later identical row tries again). */
  settle(pending: PendingItem, answer: Answer | undefined): void {
    const key = pending.key ?? Deduplicator.keyOf(pending.prepared.item);
    this.#pending.delete(key);
    if (!answer) return;
    this.#answers.set(key, answer);
    if (this.#answers.size > this.#capacity) this.#answers.delete(this.#answers.keys().next().value!);
  }
}

/**
 * The chunk as this row would have received it: the same data with its own meta echoed, in the
 * member order the service used, so output matches a run without deduplication.
 */
export function chunkForRow(chunk: Chunk, row: SendableItem): Chunk {
  const meta = row.item.meta;
  const entries = Object.entries(chunk).filter(([name]) => name !== 'meta' || meta !== undefined);
  const copy: Chunk = Object.fromEntries(entries.map(([name, value]) => [name, name === 'meta' ? meta : value]));
  if (meta !== undefined && !('meta' in copy)) copy.meta = meta;
  return copy;
}
