import type { Database, Statement } from 'better-sqlite3';
import { foundItem } from '../kept-text.js';
import type { NameIds } from '../name-ids.js';
import type { FoundItem, SectionRef } from '../store-api.js';
import { identityKey } from '../identity-key.js';

/** An item's frame and one of its fresh sections (null where it has none), as an array: no object a row to make. */
type FoundRow = [frame: unknown, endpoint: number | null, params: string | null, at: number | null, body: unknown];

/**
 * What the file holds of items, as read, before any of it is decoded, in one flat array: for each
 * item its frame, then each section asked as its time and body, all undefined where it has none
 * fresh (1 + 2 × sections slots an item, so that a lookup thread hands over one array, not one an
 * item: lookups-off-thread.ts).
 */
export type KeptRows = unknown[];

/**
 * The lookup of an item's fresh sections, by the key made from its identity (identity-key.ts), the
 * identity compared in the row. Used by the store's own connection and by a lookup thread's.
 */
export class ItemLookup {
  readonly #endpoints: NameIds;
  readonly #found: Statement<[number, number, number, string], FoundRow>;

  constructor(db: Database, endpoints: NameIds) {
    this.#endpoints = endpoints;
    // The item's frame and its fresh sections, in one statement: stale sections stay in the file,
    // only the fresh ones are read.
    this.#found = db
      .prepare<[number, number, number, string], FoundRow>(
        `SELECT i.frame, s.endpoint, s.params, s.at, s.body FROM items i LEFT JOIN sections s ON s.item = i.id AND s.at >= ?
         WHERE i.key = ? AND i.account = ? AND i.identity = ?`,
      )
      .raw();
  }

  /** Adds to `kept` what is kept of one item's sections that arrived at or after `freshFrom` (freshness.ts), undecoded (KeptRows). */
  rows(account: number, identity: string, asked: readonly SectionRef[], freshFrom: number, kept: KeptRows): void {
    const rows = this.#found.all(freshFrom, identityKey(identity), account, identity);
    kept.push(rows[0]?.[0]);
    for (const ref of asked) {
      const endpoint = this.#endpoints.find(ref.endpoint);
      const row = rows.find(([, rowEndpoint, params]) => rowEndpoint === endpoint && params === ref.params);
      kept.push(row?.[3], row?.[4]);
    }
  }
}

/**
 * One item as found from its KeptRows, from `at` (kept-text.ts, foundItem): the sections asked,
 * each undefined when missing, stale or unreadable, and the frame when any section is returned. A
 * section found has a time (a NULL one is null, and counts as damaged); one not found, none.
 */
export function foundOf(asked: readonly SectionRef[], kept: KeptRows, at: number): FoundItem {
  return foundItem(asked, kept[at], (_, i) =>
    kept[at + 1 + 2 * i] === undefined ? undefined : { at: kept[at + 1 + 2 * i] as number, body: kept[at + 2 + 2 * i] },
  );
}

/** The slots an item takes in KeptRows. */
export const slotsOf = (asked: readonly SectionRef[]): number => 1 + 2 * asked.length;
