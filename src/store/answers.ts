import { createHash } from 'node:crypto';
import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { Chunk } from '../model/chunk.js';
import { joinChunk, splitChunk, type Frame } from '../model/chunk-frame.js';
import { pack, unpack } from './codec.js';
import type { NameIds } from './name-ids.js';

/** One account's stored answers. */
export interface Answers {
  /**
   * The chunk the service would send for this item and these endpoints (in request order), with the
   * row's own `meta` echoed (undefined: none), when every part of it arrived less than `maxAgeMs`
   * before `now`; else undefined.
   */
  get(itemKey: string, endpoints: readonly string[], lookup: { maxAgeMs: number; now: number; meta?: unknown }): Chunk | undefined;
  /**
   * Keeps a chunk as received for these endpoints (in request order), each section under its own
   * endpoint so another command needing only some of them can reuse it. False, and nothing kept,
   * when a section is not an answer (an api_code other than 0 or 204) or the layout is not the one
   * a rebuild would produce. One transaction; within `Store.transaction`, part of that one.
   */
  put(itemKey: string, endpoints: readonly string[], chunk: Chunk, at: number): boolean;
}

interface ItemRow {
  id: number;
  at: number;
  frame: Buffer;
}

interface SectionRow {
  endpoint: number;
  at: number;
  body: Buffer;
}

/**
 * The caller's key (identifiers and parameters, normalised) is kept as its sha-256, cut to 128
 * bits: a fixed 16 bytes however long the address, and no collision in any store's lifetime.
 */
function keyHash(itemKey: string): Buffer {
  return createHash('sha256').update(itemKey).digest().subarray(0, 16);
}

/** Answers of every account: statements prepared once, shared by each account's view. */
export class AnswerTable {
  readonly #accounts: NameIds;
  readonly #endpoints: NameIds;
  readonly #findItem: Statement<[number, Buffer], ItemRow>;
  readonly #sectionsOf: Statement<[number], SectionRow>;
  readonly #putItem: Statement<[number, Buffer, number, Buffer], number>;
  readonly #putSection: Statement<[number, number, number, Buffer]>;
  readonly #write: Transaction<
    (account: string, key: Buffer, at: number, frame: Buffer, endpoints: readonly string[], bodies: Buffer[]) => void
  >;

  constructor(db: Database, accounts: NameIds, endpoints: NameIds) {
    this.#accounts = accounts;
    this.#endpoints = endpoints;
    this.#findItem = db.prepare<[number, Buffer], ItemRow>('SELECT id, at, frame FROM items WHERE account = ? AND key = ?');
    this.#sectionsOf = db.prepare<[number], SectionRow>('SELECT endpoint, at, body FROM sections WHERE item = ?');
    this.#putItem = db
      .prepare<[number, Buffer, number, Buffer], number>(
        // An answer may be written after a newer one (a one-off's record, applied at the store's
        // next opening): the newer frame and sections stay, whichever came last.
        `INSERT INTO items (account, key, at, frame) VALUES (?, ?, ?, ?)
         ON CONFLICT (account, key) DO UPDATE SET
           at = max(at, excluded.at),
           frame = CASE WHEN excluded.at >= at THEN excluded.frame ELSE frame END
         RETURNING id`,
      )
      .pluck();
    this.#putSection = db.prepare<[number, number, number, Buffer]>(
      `INSERT INTO sections (item, endpoint, at, body) VALUES (?, ?, ?, ?)
       ON CONFLICT (item, endpoint) DO UPDATE SET at = excluded.at, body = excluded.body WHERE excluded.at >= at`,
    );
    // Made once: building a transaction function costs more than the inserts it wraps.
    this.#write = db.transaction(
      (account: string, key: Buffer, at: number, frame: Buffer, endpoints: readonly string[], bodies: Buffer[]) => {
        const item = this.#putItem.get(this.#accounts.ensure(account), key, at, frame)!;
        endpoints.forEach((endpoint, i) => this.#putSection.run(item, this.#endpoints.ensure(endpoint), at, bodies[i]!));
      },
    );
  }

  for(account: string): Answers {
    return {
      get: (itemKey, endpoints, lookup) => this.#get(account, itemKey, endpoints, lookup),
      put: (itemKey, endpoints, chunk, at) => this.#put(account, itemKey, endpoints, chunk, at),
    };
  }

  #get(
    account: string,
    itemKey: string,
    endpoints: readonly string[],
    { maxAgeMs, now, meta }: { maxAgeMs: number; now: number; meta?: unknown },
  ): Chunk | undefined {
    const accountId = this.#accounts.find(account);
    if (accountId === undefined) return undefined;
    const oldest = now - maxAgeMs;
    const item = this.#findItem.get(accountId, keyHash(itemKey));
    if (!item || item.at <= oldest) return undefined;
    const rows = this.#sectionsOf.all(item.id);
    const bodies: Buffer[] = [];
    for (const endpoint of endpoints) {
      const id = this.#endpoints.find(endpoint);
      const row = rows.find((candidate) => candidate.endpoint === id);
      if (!row || row.at <= oldest) return undefined;
      bodies.push(row.body);
    }
    const sections = bodies.map((body) => JSON.parse(unpack(body)) as unknown);
    return joinChunk(JSON.parse(unpack(item.frame)) as Frame, endpoints, sections, meta);
  }

  #put(account: string, itemKey: string, endpoints: readonly string[], chunk: Chunk, at: number): boolean {
    const split = splitChunk(chunk, endpoints);
    if (!split) return false;
    // Compressed before the transaction: the write lock, shared with other processes, is held for
    // the inserts alone.
    const frame = pack(JSON.stringify(split.frame));
    const bodies = split.sections.map((section) => pack(JSON.stringify(section)));
    this.#write.immediate(account, keyHash(itemKey), at, frame, endpoints, bodies);
    return true;
  }
}
