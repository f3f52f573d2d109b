import type { PoolClient } from 'pg';
import { decideClaim, decideItemClaim, distinctSections, isLive, takes, type ClaimContext, type SectionState } from '../claim-protocol.js';
import { identityKey } from '../identity-key.js';
import { foundItem } from '../kept-text.js';
import { freshFrom } from '../freshness.js';
import type { ClaimOptions, ClaimResult, Freshness, ItemClaim, ItemRef, SectionClaim } from '../store-api.js';
import { executed, literal, type Database } from './database.js';
import { enterRunStatement } from './runs.js';
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
function literalArrays(
  client: PoolClient,
  claims: readonly SectionClaim[],
): { identities: string; keys: string; endpoints: string; params: string } {
  const [keys, endpoints, params] = arrays(claims);
  return {
    identities: literal(
      client,
      claims.map((c) => c.item),
    ),
    keys: literal(client, keys!),
    endpoints: literal(client, endpoints!),
    params: literal(client, params!),
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
  readonly #schemaLiteral: string;

  constructor(db: Database, s: string, schemaLiteral: string) {
    this.#db = db;
    this.#s = s;
    this.#schemaLiteral = schemaLiteral;
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
   * or need no write (all kept, or one held by another): the read's statement also writes the
   * claims, only when every section is empty, and the transaction commits. "Empty, so claimed" is
   * what decideClaim says of an empty section under any context; the decision is still
   * decideItemClaim's, on what the statement read. Anything else to take (a lapsed claim, this
   * owner's own, an answer too old, a damaged one) is claimed in the two round trips of `claim`,
   * read afresh under the locks.
   */
  async claimItem(
    accountId: number,
    owner: string,
    ref: ItemRef,
    freshness: Freshness,
    { leaseMs, graceMs, enter }: { leaseMs: number; graceMs: number; enter?: { run: string; left: readonly string[] } },
  ): Promise<ItemClaim> {
    const { distinct, place } = distinctSections(ref.sections.map((section) => ({ item: ref.item, ...section })));
    const opened = await this.#db.transactionInOne(
      (client) =>
        `${this.#lock(client, accountId, distinct, true)}; ${this.#entering(client, accountId, leaseMs, enter)}${this.#readClaimingEmpty(client, accountId, owner, distinct, leaseMs)}`,
    );
    const entered = enter === undefined ? undefined : (opened.at(-2)![0] as { earliest: number }).earliest;
    const decide = (states: readonly StateRow[]) => {
      const now = states[0]!.now;
      const from = freshFrom({ ...freshness, since: Math.min(freshness.since ?? Infinity, entered ?? Infinity) }, now);
      return { states, from, ...decideItemClaim(states.map(stateOf), { owner, now, freshFrom: from, graceMs }) };
    };
    const read = opened.at(-1) as (StateRow & { taken: number })[];
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
      (client) => `${this.#lock(client, accountId, distinct)}; ${this.#read(client, accountId, distinct)}`,
      (rows, client) => {
        const states = rows as StateRow[];
        const decided = decide(states);
        const taken = decided.writes ? distinct.filter((_, i) => takes(decided.outcomes[i]!)) : [];
        const expires = states[0]!.now + leaseMs;
        return { result: decided, ...(taken.length > 0 ? { write: this.#write(client, accountId, owner, taken, expires) } : {}) };
      },
    );
    return result;
  }

  /** The statement entering the run with the claim, if it is to be (with its `; `), else nothing. */
  #entering(client: PoolClient, accountId: number, leaseMs: number, enter: { run: string; left: readonly string[] } | undefined): string {
    if (enter === undefined) return '';
    const text = enterRunStatement(this.#s, { accountId: '$1', run: '$2', leaseMs: '$3', left: '$4' });
    return `${executed(client, 'propdata_claim_enter', text, [accountId, literal(client, enter.run), leaseMs, literal(client, enter.left)])}; `;
  }

  /**
   * The read of `#read`, which also claims the sections for `owner` when every one is empty
   * (neither kept nor claimed), in the same statement: its rows say how many it claimed (`taken`).
   * Its data-modifying part sees the read's snapshot, taken once the locks were had. Prepared: one
   * item's few sections are each found through their indexes whatever the plan.
   */
  #readClaimingEmpty(client: PoolClient, accountId: number, owner: string, sections: readonly SectionClaim[], leaseMs: number): string {
    const text = `WITH r AS (${this.#readText({ accountId: '$1::int', identities: '$2', endpoints: '$3', params: '$4', keys: '$7' }, true)}),
       taken AS (INSERT INTO ${this.#s}.claims (account, key, endpoint, params, owner, expires)
         SELECT $1::int, key, endpoint, params, $5::text, now + $6::bigint FROM r
         WHERE NOT EXISTS (SELECT 1 FROM r WHERE owner IS NOT NULL OR at IS NOT NULL)
         RETURNING 1)
       SELECT owner, expires, at, body, frame, now, (SELECT count(*) FROM taken)::int AS taken FROM r ORDER BY ord`;
    const { identities, keys, endpoints, params } = literalArrays(client, sections);
    return executed(client, 'propdata_claim_item', text, [accountId, identities, endpoints, params, literal(client, owner), leaseMs, keys]);
  }

  /**
   * Each section's lock, in the order given (distinctSections: one order for every job), for the
   * rest of the transaction. `inOne`: for a transaction sent whole in one round trip (claimItem's),
   * its statements prepared; it is never idle in its transaction, so no time limit on that is set.
   */
  #lock(client: PoolClient, accountId: number, sections: readonly SectionClaim[], inOne = false): string {
    const keys = literal(
      client,
      sections.map((c) => `${identityKey(c.item)}\n${c.endpoint}\n${c.params}`),
    );
    const lock = (account: string, list: string) =>
      `SELECT pg_advisory_xact_lock(hashtextextended(${this.#schemaLiteral} || ' claim ' || ${account} || ' ' || k, 0))
       FROM unnest(${list}::text[]) WITH ORDINALITY AS x(k, ord) ORDER BY ord`;
    const timeout = `SET LOCAL lock_timeout = '${CLAIMS.lockTimeoutMs}ms'`;
    if (!inOne)
      return `${timeout}; SET LOCAL idle_in_transaction_session_timeout = '${CLAIMS.idleInTransactionMs}ms'; ${lock(String(accountId), keys)}`;
    // A prepared statement's plan is used as it is: PostgreSQL would otherwise plan each run afresh
    // (a generic plan of a list of unknown length looks dearer to it), as for the literals.
    const locks = executed(client, 'propdata_claim_lock', lock('$1::int', '$2'), [accountId, keys]);
    return `${timeout}; SET LOCAL plan_cache_mode = force_generic_plan; ${locks}`;
  }

  /** The sections' claims and kept answers, read once their locks are had (a statement of its own, so a snapshot of its own). */
  #read(client: PoolClient, accountId: number, sections: readonly SectionClaim[]): string {
    // Planned afresh each time: a plan kept for any list (a prepared statement's) scanned the
    // claims table once per section, which a run's churn leaves full of dead rows.
    return this.#readText({ accountId: String(accountId), ...literalArrays(client, sections) }, false);
  }

  /**
   * The read's text, its values SQL expressions (literals, or a prepared statement's parameters).
   * Each section's claim and kept answer found through their indexes, one lookup a listed section
   * (LATERAL, kept apart by OFFSET 0): joined plainly, a store filling up (its statistics lagging)
   * had the whole sections table scanned for every claim, 10 ms each by 100,000 items. `keyed`: each
   * section's key and place too, unordered, for a statement that reads it as a table (`#readClaimingEmpty`).
   */
  #readText(v: { accountId: string; identities: string; keys: string; endpoints: string; params: string }, keyed: boolean): string {
    const s = this.#s;
    const keys = keyed ? ', w.key, w.endpoint, w.params, w.ord' : '';
    return `SELECT c.owner, c.expires, k.at, k.body, k.frame, ${s}.now_ms() AS now${keys}
       FROM unnest(${v.identities}::text[], ${v.endpoints}::text[], ${v.params}::text[], ${v.keys}::bigint[]) WITH ORDINALITY AS w(identity, endpoint, params, key, ord)
       LEFT JOIN LATERAL (SELECT owner, expires FROM ${s}.claims
         WHERE account = ${v.accountId} AND key = w.key AND endpoint = w.endpoint AND params = w.params OFFSET 0) c ON true
       LEFT JOIN LATERAL (SELECT k.at, k.body, i.frame FROM ${s}.items i JOIN ${s}.sections k ON k.item = i.id
         WHERE i.account = ${v.accountId} AND i.key = w.key AND i.identity = w.identity AND k.endpoint = w.endpoint AND k.params = w.params OFFSET 0) k ON true
       ${keyed ? '' : 'ORDER BY w.ord'}`;
  }

  #write(client: PoolClient, accountId: number, owner: string, sections: readonly SectionClaim[], expires: number): string {
    const { keys, endpoints, params } = literalArrays(client, sections);
    return `INSERT INTO ${this.#s}.claims (account, key, endpoint, params, owner, expires)
       SELECT DISTINCT ON (w.key, w.endpoint, w.params) ${accountId}, w.key, w.endpoint, w.params, ${literal(client, owner)}, ${expires}
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
