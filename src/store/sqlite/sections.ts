import type { Database, Statement } from 'better-sqlite3';
import { foundItem, type EncodedAnswer } from '../kept-text.js';
import type { NameIds } from '../name-ids.js';
import type { FoundItem, SectionRef } from '../store-api.js';

/**
 * Whether a kept text is whole JSON, in SQL: a section or frame that is not (damaged on disk) is
 * replaced by any answer, even an older one. JSON.parse decides the same when reading (decode).
 */
const READABLE = (column: string) => `json_valid(${column})`;

interface ItemRow {
  id: number;
  frame: unknown;
}

interface SectionRow {
  endpoint: number;
  params: string;
  at: number;
  body: unknown;
}

/**
 * Kept sections of every account, filed by item identity, endpoint and parameters, with each
 * item's frame. Statements are prepared once; every method runs inside the caller's transaction.
 */
export class SectionTable {
  readonly #endpoints: NameIds;
  readonly #findItem: Statement<[number, string], ItemRow>;
  readonly #freshSections: Statement<[number, number], SectionRow>;
  readonly #putItem: Statement<[number, string, number, string], number>;
  readonly #putSection: Statement<[number, number, string, number, string]>;
  readonly #kept: Statement<[number, string, number, string], { at: number; body: unknown }>;

  constructor(db: Database, endpoints: NameIds) {
    this.#endpoints = endpoints;
    this.#findItem = db.prepare<[number, string], ItemRow>('SELECT id, frame FROM items WHERE account = ? AND identity = ?');
    // Stale sections stay in the file: only the fresh ones are read.
    this.#freshSections = db.prepare<[number, number], SectionRow>(
      'SELECT endpoint, params, at, body FROM sections WHERE item = ? AND at >= ?',
    );
    this.#putItem = db
      .prepare<[number, string, number, string], number>(
        // An answer may be recorded after a newer one (a one-off's, applied at the store's next
        // opening): the newer frame stays, unless it is damaged.
        `INSERT INTO items (account, identity, at, frame) VALUES (?, ?, ?, ?)
         ON CONFLICT (account, identity) DO UPDATE SET
           at = CASE WHEN typeof(at) = 'integer' THEN max(at, excluded.at) ELSE excluded.at END,
           frame = CASE WHEN excluded.at >= at OR NOT ${READABLE('frame')} THEN excluded.frame ELSE frame END
         RETURNING id`,
      )
      .pluck();
    this.#putSection = db.prepare<[number, number, string, number, string]>(
      `INSERT INTO sections (item, endpoint, params, at, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (item, endpoint, params) DO UPDATE SET at = excluded.at, body = excluded.body
       WHERE excluded.at >= sections.at OR NOT ${READABLE('sections.body')} OR typeof(sections.at) <> 'integer'`,
    );
    this.#kept = db.prepare<[number, string, number, string], { at: number; body: unknown }>(
      `SELECT s.at, s.body FROM items i JOIN sections s ON s.item = i.id
       WHERE i.account = ? AND i.identity = ? AND s.endpoint = ? AND s.params = ?`,
    );
  }

  /**
   * What is kept of one item's sections that arrived at or after `freshFrom` (freshness.ts): the
   * sections asked, in order, each undefined when missing, stale or unreadable, and the frame when
   * any section is returned.
   */
  find(account: number, identity: string, asked: readonly SectionRef[], freshFrom: number): FoundItem {
    const item = this.#findItem.get(account, identity);
    if (!item) return { sections: asked.map(() => undefined), damaged: 0 };
    const rows = this.#freshSections.all(item.id, freshFrom);
    return foundItem(asked, item.frame, (ref) => {
      const endpoint = this.#endpoints.find(ref.endpoint);
      return rows.find((candidate) => candidate.endpoint === endpoint && candidate.params === ref.params);
    });
  }

  /** Keeps one item's answer as of `at`, replacing older or unreadable sections, never newer ones. Within a write transaction. */
  keep(account: number, answer: EncodedAnswer, at: number): void {
    const item = this.#putItem.get(account, answer.identity, at, answer.frame)!;
    for (const section of answer.sections) {
      this.#putSection.run(item, this.#endpoints.ensure(section.endpoint), section.params, at, section.body);
    }
  }

  /** A kept section as stored, whatever its age or state, for the claim protocol to judge. */
  kept(account: number, identity: string, ref: SectionRef): { at: number; body: unknown } | undefined {
    const endpoint = this.#endpoints.find(ref.endpoint);
    return endpoint === undefined ? undefined : this.#kept.get(account, identity, endpoint, ref.params);
  }
}
