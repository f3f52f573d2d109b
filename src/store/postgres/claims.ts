import { decideClaim, decideItemClaim, distinctSections, isLive, takes, type ClaimContext, type SectionState } from '../claim-protocol.js';
import { identityKey } from '../identity-key.js';
import { foundItem } from '../kept-text.js';
import { freshFrom } from '../freshness.js';
import type { ClaimOptions, ClaimResult, Freshness, ItemClaim, ItemRef, SectionClaim } from '../store-api.js';
import { literal, type Database } from './database.js';
import { CLAIMS } from '../../policy/policy.js';

/**
 * The sections as three arrays (the item's key, endpoint, parameters), for unnest. A claim names its
 * item by key (item-keys.ts), as in the SQLite file (sqlite/claims.ts): two identities with one key
 * (1 in 2^53 a pair) share a claim and its lock, so a job may wait for the other item's answer,
 * then claim its own.
 */
const arrays = (claims: readonly SectionClaim[]) => [
  claims.map((c) => identityKey(c.item)),
  claims.map((c) => c.endpoint),
  claims.map((c) => c.params),
];

/** The sections' arrays as literals in a statement's text: each item's identity and key, each endpoint and parameters. */
function literalArrays(claims: readonly SectionClaim[]): { identities: string; keys: string; endpoints: string; params: string } {
  const [keys, endpoints, params] = arrays(claims);
  return {
    identities: literal(claims.map((c) => c.item)),
    keys: literal(keys!),
    endpoints: literal(endpoints!),
    params: literal(params!),
  };
}

/**
 * A claim's locks are waited for no longer than this: they are held for the few milliseconds of
 * one claim, so a longer wait means a job stopped mid-transaction, which the database cuts off
 * after CLAIMS.idleInTransactionMs.
 */

interface StateRow {
  owner: string | null;
  expires: number | null;
  at: number | null;
  body: string | null;
  frame: string | null;
  now: number;
}

/**
 * The claims' state in the database (PROTOCOL.md), on the database's clock: another job, on any
 * machine, that needs a section being bought waits for its answer instead of buying it too. A claim
 * is one transaction: each section's advisory lock taken first (in one order for every job), then
 * its claim and kept section read (a statement of its own, so its snapshot sees every answer
 * committed before the locks were had), decided by the protocol, and written. Reading before
 * locking let a job see the section neither kept nor claimed while another stored its answer and
 * released its claim, and buy it again (READ COMMITTED gives each statement its own snapshot).
 */
export class ClaimTable {
  readonly #db: Database;
  readonly #s: string;

  constructor(db: Database, s: string) {
    this.#db = db;
    this.#s = s;
  }

  async claim(
    accountId: number,
    owner: string,
    sections: readonly SectionClaim[],
    freshness: Freshness,
    { leaseMs, force = false, graceMs = 0 }: { leaseMs: number } & ClaimOptions,
  ): Promise<ClaimResult[]> {
    const { distinct, place } = distinctSections(sections);
    const { outcomes } = await this.#claimInTwo(accountId, owner, distinct, leaseMs, (states) => {
      const now = states[0]!.now;
      const context: ClaimContext = { owner, now, freshFrom: freshFrom(freshness, now), force, graceMs };
      return { outcomes: states.map((row) => decideClaim(stateOf(row), context)), writes: true };
    });
    return place.map((i) => outcomes[i]!);
  }

  /**
   * One item looked up and claimed (Store.claimItem): the read under the locks gives the kept
   * sections too, so the item as found is made of what the claim read. A run entered with it
   * (`enter`) is entered once the locks are had, before the read.
   *
   * One round trip when the item's sections are all empty (neither kept nor claimed: a new item)
   * or need no write (all kept, or one held by another): the schema's claim_item (claim-functions.ts),
   * one prepared statement, whose read also writes the claims, only when every section is empty,
   * and commits. "Empty, so claimed" is what decideClaim says of an empty section under any
   * context; the decision is still decideItemClaim's, on what the statement read. Anything else to
   * take (a lapsed claim, this owner's own, an answer too old, a damaged one) is claimed in the two
   * round trips of `claim`, read afresh under the locks.
   */
  async claimItem(
    accountId: number,
    owner: string,
    ref: ItemRef,
    freshness: Freshness,
    { leaseMs, graceMs, enter }: { leaseMs: number; graceMs: number; enter?: { run: string; left: readonly string[] } },
  ): Promise<ItemClaim> {
    const { distinct, place } = distinctSections(ref.sections.map((section) => ({ item: ref.item, ...section })));
    const [keys, endpoints, params] = arrays(distinct);
    const read = await this.#db.query<StateRow & { taken: number; earliest: number | null }>(
      `SELECT * FROM ${this.#s}.claim_item($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        ...[accountId, distinct.map((c) => c.item), endpoints, params, keys, owner, leaseMs],
        ...[enter?.run ?? null, enter?.left ?? [], CLAIMS.lockTimeoutMs],
      ],
    );
    const entered = enter === undefined ? undefined : read[0]!.earliest!;
    const decide = (states: readonly StateRow[]) => {
      const now = states[0]!.now;
      const from = freshFrom({ ...freshness, since: Math.min(freshness.since ?? Infinity, entered ?? Infinity) }, now);
      return { states, from, ...decideItemClaim(states.map(stateOf), { owner, now, freshFrom: from, graceMs }) };
    };
    const first = decide(read);
    const wrote = read[0]!.taken > 0;
    const toTake = first.writes && first.outcomes.some(takes);
    const { states, outcomes, from } = wrote || !toTake ? first : await this.#claimInTwo(accountId, owner, distinct, leaseMs, decide);
    // As findItems reads it: the item's frame, and each section kept since `from`.
    const frame = states.find((row) => row.at !== null)?.frame;
    const found = foundItem(ref.sections, frame, (section) => {
      const row = states[place[ref.sections.indexOf(section)]!]!;
      return row.at !== null && row.at >= from ? { at: row.at, body: row.body } : undefined;
    });
    return { found, outcomes: place.map((i) => outcomes[i]!), ...(entered === undefined ? {} : { entered }) };
  }

  /**
   * A claim in two round trips: the locks and the read; then, as `decide` says of what was read,
   * the write of the sections it takes (unless it `writes` nothing) and the commit.
   */
  async #claimInTwo<D extends { outcomes: ClaimResult[]; writes: boolean }>(
    accountId: number,
    owner: string,
    distinct: readonly SectionClaim[],
    leaseMs: number,
    decide: (states: readonly StateRow[]) => D,
  ): Promise<D> {
    const { result } = await this.#db.transactionInTwo(
      () => `${this.#lock(accountId, distinct)}; ${this.#read(accountId, distinct)}`,
      (rows) => {
        const states = rows as StateRow[];
        const decided = decide(states);
        const taken = decided.writes ? distinct.filter((_, i) => takes(decided.outcomes[i]!)) : [];
        const expires = states[0]!.now + leaseMs;
        return { result: decided, ...(taken.length > 0 ? { write: this.#write(accountId, owner, taken, expires) } : {}) };
      },
    );
    return result;
  }

  /**
   * Each section's lock (the schema's claim_locks), in the order given (distinctSections: one order
   * for every job), for the rest of the transaction.
   */
  #lock(accountId: number, sections: readonly SectionClaim[]): string {
    const { keys, endpoints, params } = literalArrays(sections);
    return `SET LOCAL lock_timeout = '${CLAIMS.lockTimeoutMs}ms'; SET LOCAL idle_in_transaction_session_timeout = '${CLAIMS.idleInTransactionMs}ms';
      SELECT ${this.#s}.claim_locks(${accountId}, ${keys}, ${endpoints}, ${params})`;
  }

  /**
   * The sections' claims and kept answers (the schema's claim_state), read once their locks are had
   * (a statement of its own, so a snapshot of its own), its values as literals: planned afresh each time.
   */
  #read(accountId: number, sections: readonly SectionClaim[]): string {
    const { identities, keys, endpoints, params } = literalArrays(sections);
    return `SELECT owner, expires, at, body, frame, now FROM ${this.#s}.claim_state(${accountId}, ${identities}, ${endpoints}, ${params}, ${keys})
      ORDER BY ord`;
  }

  #write(accountId: number, owner: string, sections: readonly SectionClaim[], expires: number): string {
    const { keys, endpoints, params } = literalArrays(sections);
    return `INSERT INTO ${this.#s}.claims (account, key, endpoint, params, owner, expires)
       SELECT DISTINCT ON (w.key, w.endpoint, w.params) ${accountId}, w.key, w.endpoint, w.params, ${literal(owner)}, ${expires}
       FROM unnest(${keys}::bigint[], ${endpoints}::text[], ${params}::text[]) AS w(key, endpoint, params)
       ON CONFLICT (account, key, endpoint, params) DO UPDATE SET owner = excluded.owner, expires = excluded.expires`;
  }

  /** Every claim `owner` holds, lapsed or not: a lapsed one nobody took over is still its own (rule 3). */
  async renew(owner: string, leaseMs: number): Promise<void> {
    const s = this.#s;
    await this.#db.query(`UPDATE ${s}.claims SET expires = ${s}.now_ms() + $2 WHERE owner = $1`, [owner, leaseMs]);
  }

  async releaseAll(owner: string): Promise<void> {
    await this.#db.query(`DELETE FROM ${this.#s}.claims WHERE owner = $1`, [owner]);
  }

  /** Removes `owner`'s claims on these sections (released, or given up). */
  async release(account: string, owner: string, sections: readonly SectionClaim[]): Promise<void> {
    const s = this.#s;
    await this.#db.query(
      deleteClaims(
        s,
        `unnest($3::bigint[], $4::text[], $5::text[]) AS x(key, endpoint, params)
         CROSS JOIN (SELECT id AS account, $2::text AS owner FROM ${s}.accounts WHERE name = $1) new`,
      ),
      [account, owner, ...arrays(sections)],
    );
  }

  /**
   * Which sections a live claim of another owner holds (the claims and the database's now, read
   * together; isLive decides). No row at all when no other owner claims anything of the account (a
   * run alone on its store, every first run into a new one): the sections are then not looked up.
   */
  async held(account: string, owner: string, sections: readonly SectionClaim[], graceMs = 0): Promise<boolean[]> {
    const s = this.#s;
    const rows = await this.#db.query<{ owner: string | null; expires: number | null; now: number }>(
      `WITH a AS (SELECT id FROM ${s}.accounts WHERE name = $1)
       SELECT c.owner, c.expires, ${s}.now_ms() AS now
       FROM unnest($2::bigint[], $3::text[], $4::text[]) WITH ORDINALITY AS w(key, endpoint, params, ord)
       LEFT JOIN LATERAL (SELECT owner, expires FROM ${s}.claims
         WHERE account = (SELECT id FROM a) AND key = w.key AND endpoint = w.endpoint AND params = w.params OFFSET 0) c ON true
       WHERE EXISTS (SELECT 1 FROM ${s}.claims WHERE account = (SELECT id FROM a) AND owner <> $5)
       ORDER BY w.ord`,
      [account, ...arrays(sections), owner],
    );
    if (rows.length === 0) return sections.map(() => false);
    return rows.map((row) => {
      const { claim } = stateOf({ ...row, at: null, body: null, frame: null });
      return claim !== undefined && claim.owner !== owner && isLive(claim, row.now, graceMs);
    });
  }
}

/**
 * The statement that deletes claims: `sections` is a FROM list giving each section settled or given
 * up (x: its item's key, endpoint, params) with its account and owner (new: account, owner). Each claim
 * is found through its index, one lookup a listed section (LATERAL, kept apart by OFFSET 0), and
 * deleted by its row's address, whatever the statistics say: joined plainly, a claims table the
 * planner takes for a few rows (one just vacuumed) had every claim of the run compared with every
 * section listed (2 ms for 100, the square of their number).
 */
export const deleteClaims = (s: string, sections: string): string =>
  `DELETE FROM ${s}.claims c USING (
     SELECT k.ctid FROM ${sections}
     CROSS JOIN LATERAL (SELECT ctid, owner FROM ${s}.claims
       WHERE account = new.account AND key = x.key AND endpoint = x.endpoint AND params = x.params OFFSET 0) k
     WHERE k.owner = new.owner
   ) d
   WHERE c.ctid = d.ctid`;

function stateOf(row: StateRow): SectionState {
  return {
    claim: row.owner === null ? undefined : { owner: row.owner, expires: row.expires! },
    kept: row.at === null ? undefined : { at: row.at, body: row.body, frame: row.frame },
  };
}
