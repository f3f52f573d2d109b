import type { Database, Statement } from 'better-sqlite3';
import type { EncodedAnswer } from '../kept-text.js';
import type { NameIds } from '../name-ids.js';
import { identityKey } from '../identity-key.js';
import { foundOf, ItemLookup, type KeptRows } from './item-lookup.js';
import type { FoundItem, SectionRef } from '../store-api.js';

/**
 * Whether a kept text is whole JSON, in SQL: a section or frame that is not (damaged on disk) is
 * replaced by any answer, even an older one. JSON.parse decides the same when reading (decode).
 */
const READABLE = (column: string) => `json_valid(${column})`;

/** Where an item is: its key (identity-key.ts), its account and its identity, as every statement here finds it. */
type ItemAt = [key: number, account: number, identity: string];

interface ItemUpdate {
  at: number;
  frame: string;
  id: number;
}

/**
 * Kept sections of every account, filed by item identity, endpoint and parameters, with each
 * item's frame. Items are found by the key made from their identity, the identity compared in the
 * row. Statements are prepared once; every method runs inside the caller's transaction.
 */
export class SectionTable {
  readonly #endpoints: NameIds;
  readonly #lookup: ItemLookup;
  readonly #itemId: Statement<ItemAt, number>;
  readonly #updateItem: Statement<[ItemUpdate]>;
  readonly #addItem: Statement<[...ItemAt, number, string]>;
  readonly #putSection: Statement<[number, number, string, number, string]>;
  readonly #kept: Statement<[number, string, ...ItemAt], { at: number; body: unknown; frame: unknown }>;

  constructor(db: Database, endpoints: NameIds) {
    this.#endpoints = endpoints;
    this.#lookup = new ItemLookup(db, endpoints);
    // The item found first, then changed by its row id: an UPDATE ... RETURNING that found no row
    // (every item of a first run) cost 20 µs an item, this lookup a tenth of that.
    this.#itemId = db.prepare<ItemAt, number>('SELECT id FROM items WHERE key = ? AND account = ? AND identity = ?').pluck();
    // An answer may be recorded after a newer one (a one-off's, applied at the store's next
    // opening): the newer frame stays, unless it is damaged. A time kept as text (damaged) is replaced.
    this.#updateItem = db.prepare<[ItemUpdate]>(
      `UPDATE items SET at = CASE WHEN typeof(at) = 'integer' THEN max(at, @at) ELSE @at END,
         frame = CASE WHEN @at >= at OR NOT ${READABLE('frame')} THEN @frame ELSE frame END
       WHERE id = @id`,
    );
    this.#addItem = db.prepare<[...ItemAt, number, string]>('INSERT INTO items (key, account, identity, at, frame) VALUES (?, ?, ?, ?, ?)');
    this.#putSection = db.prepare<[number, number, string, number, string]>(
      `INSERT INTO sections (item, endpoint, params, at, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (item, endpoint, params) DO UPDATE SET at = excluded.at, body = excluded.body
       WHERE excluded.at >= sections.at OR NOT ${READABLE('sections.body')} OR typeof(sections.at) <> 'integer'`,
    );
    this.#kept = db.prepare<[number, string, ...ItemAt], { at: number; body: unknown; frame: unknown }>(
      `SELECT s.at, s.body, i.frame FROM items i JOIN sections s ON s.item = i.id AND s.endpoint = ? AND s.params = ?
       WHERE i.key = ? AND i.account = ? AND i.identity = ?`,
    );
  }

  /**
   * What is kept of one item's sections that arrived at or after `freshFrom` (freshness.ts): the
   * sections asked, in order, each undefined when missing, stale or unreadable, and the frame when
   * any section is returned.
   */
  find(account: number, identity: string, asked: readonly SectionRef[], freshFrom: number): FoundItem {
    const kept: KeptRows = [];
    this.#lookup.rows(account, identity, asked, freshFrom, kept);
    return foundOf(asked, kept, 0);
  }

  /** Keeps one item's answer as of `at`, replacing older or unreadable sections, never newer ones. Within a write transaction. */
  keep(account: number, answer: EncodedAnswer, at: number): void {
    const where: ItemAt = [identityKey(answer.identity), account, answer.identity];
    let item = this.#itemId.get(...where);
    if (item === undefined) item = Number(this.#addItem.run(...where, at, answer.frame).lastInsertRowid);
    else this.#updateItem.run({ at, frame: answer.frame, id: item });
    for (const section of answer.sections) {
      this.#putSection.run(item, this.#endpoints.ensure(section.endpoint), section.params, at, section.body);
    }
  }

  /** A kept section and its item's frame as stored, whatever their age or state, for the claim protocol to judge. */
  kept(account: number, identity: string, ref: SectionRef): { at: number; body: unknown; frame: unknown } | undefined {
    const endpoint = this.#endpoints.find(ref.endpoint);
    return endpoint === undefined ? undefined : this.#kept.get(endpoint, ref.params, identityKey(identity), account, identity);
  }
}
