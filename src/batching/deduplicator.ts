import type { Chunk } from '../model/chunk.js';
import type { Status } from '../model/status.js';
import type { PendingItem, SendableItem } from './batch.js';
import { hashOf, KeyTable } from './key-table.js';

/** What to do with a row: send it, wait for an identical item already on its way, or reuse an answer. */
export type DedupeDecision =
  | { kind: 'send'; pending: PendingItem }
  | { kind: 'joined' }
  | { kind: 'answered'; answer: Answer };

/** A successful answer worth reusing: the chunk and the status it gave its row. */
export interface Answer {
  chunk: Chunk;
  status: Status;
}

/**
 * Identical items (same identifiers and parameters; meta aside, since it is only echoed) are sent
 * once per run. Items on their way are always matched; answers are remembered for `capacity`
 * distinct items only, so that memory stays flat however long the input is. Which answer makes
 * room for a new one is decided by a clock (second chance): the hand passes over answers reused
 * since it last came by and evicts the first one that was not, so answers that keep being asked
 * for stay, as with least-recently-used, at the cost of one mark per hit.
 */
export class Deduplicator {
  readonly #pending = new KeyTable<PendingItem>();
  /** Where each remembered answer sits on the clock. */
  readonly #answerAt: KeyTable<number>;
  readonly #keys: (string | undefined)[];
  readonly #hashes: Uint32Array;
  readonly #answers: (Answer | undefined)[];
  /** Reused since the hand last passed. */
  readonly #used: Uint8Array;
  readonly #capacity: number;
  #hand = 0;
  #filled = 0;
  saved = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#answerAt = new KeyTable<number>(capacity);
    this.#keys = new Array<string | undefined>(capacity).fill(undefined);
    this.#hashes = new Uint32Array(capacity);
    this.#answers = new Array<Answer | undefined>(capacity).fill(undefined);
    this.#used = new Uint8Array(capacity);
  }

  static keyOf(item: SendableItem['item']): string {
    // Most items carry no meta: copying each one to leave meta out would be garbage for nothing.
    if (item.meta === undefined) return JSON.stringify(item);
    const { meta: _meta, ...identity } = item;
    return JSON.stringify(identity);
  }

  decide(prepared: SendableItem): DedupeDecision {
    const key = Deduplicator.keyOf(prepared.item);
    const hash = hashOf(key);
    const pending = this.#pending.get(key, hash);
    if (pending) {
      pending.duplicates.push(prepared);
      this.saved += 1;
      return { kind: 'joined' };
    }
    const at = this.#answerAt.get(key, hash);
    if (at !== undefined) {
      this.#used[at] = 1;
      this.saved += 1;
      return { kind: 'answered', answer: this.#answers[at]! };
    }
    const fresh: PendingItem = { prepared, duplicates: [], key };
    this.#pending.set(key, fresh, hash);
    return { kind: 'send', pending: fresh };
  }

  /** The item's answer arrived (or none, when it failed: a later identical row tries again). */
  settle(pending: PendingItem, answer: Answer | undefined): void {
    const key = pending.key ?? Deduplicator.keyOf(pending.prepared.item);
    const hash = hashOf(key);
    this.#pending.delete(key, hash);
    if (answer) this.#remember(key, hash, answer);
  }

  #remember(key: string, hash: number, answer: Answer): void {
    let at: number;
    if (this.#filled < this.#capacity) {
      at = this.#filled;
      this.#filled += 1;
    } else {
      while (this.#used[this.#hand] === 1) {
        this.#used[this.#hand] = 0;
        this.#hand = (this.#hand + 1) % this.#capacity;
      }
      at = this.#hand;
      this.#answerAt.delete(this.#keys[at]!, this.#hashes[at]);
      this.#hand = (this.#hand + 1) % this.#capacity;
    }
    this.#keys[at] = key;
    this.#hashes[at] = hash;
    this.#answers[at] = answer;
    this.#used[at] = 0;
    this.#answerAt.set(key, at, hash);
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
