import type { ClaimResult, Freshness, SectionClaim } from '../store-api.js';
import type { Database } from './database.js';

const keyOf = (claim: SectionClaim) => `${claim.item}\n${claim.endpoint}\n${claim.params}`;

/** The sections as three arrays (identity, endpoint, parameters), for unnest. */
const arrays = (claims: readonly SectionClaim[]) => [claims.map((c) => c.item), claims.map((c) => c.endpoint), claims.map((c) => c.params)];

/**
 * Sections being bought, and by whom until when, on the database's clock: another job, on any
 * machine, that needs one waits for its answer instead of buying it too. Each method is one
 * statement; `claim` decides every section in it atomically (INSERT ... ON CONFLICT takes each
 * section's row lock), so two jobs never both claim one.
 */
export class ClaimTable {
  readonly #db: Database;
  readonly #s: string;

  constructor(db: Database, s: string) {
    this.#db = db;
    this.#s = s;
  }

  /**
   * Each section: `kept` when a fresh, readable answer is kept; `held` by a live claim of another
   * owner; otherwise now `owner`'s until `leaseMs` from now (a lapsed claim is taken over). A
   * section named twice is decided once; sections go in key order, so two jobs lock them alike.
   */
  async claim(
    accountId: number,
    owner: string,
    sections: readonly SectionClaim[],
    freshness: Freshness,
    leaseMs: number,
  ): Promise<ClaimResult[]> {
    const s = this.#s;
    const distinct = [...new Map(sections.map((claim) => [keyOf(claim), claim])).values()].sort((a, b) =>
      keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0,
    );
    const rows = await this.#db.query<{ outcome: ClaimResult }>(
      `WITH wanted AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS w(identity, endpoint, params, ord)
       ),
       kept AS (
         SELECT w.ord FROM wanted w
         JOIN ${s}.items i ON i.account = $1 AND i.identity = w.identity
         JOIN ${s}.sections k ON k.item = i.id AND k.endpoint = w.endpoint AND k.params = w.params
         WHERE ${s}.fresh(k.at, $6, $7) AND ${s}.readable(k.body)
       ),
       claimed AS (
         INSERT INTO ${s}.claims AS c (account, identity, endpoint, params, owner, expires)
         SELECT $1, w.identity, w.endpoint, w.params, $5, ${s}.now_ms() + $8 FROM wanted w WHERE w.ord NOT IN (SELECT ord FROM kept)
         ON CONFLICT (account, identity, endpoint, params) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
         WHERE c.owner = excluded.owner OR c.expires <= ${s}.now_ms()
         RETURNING c.identity, c.endpoint, c.params
       )
       SELECT CASE
         WHEN w.ord IN (SELECT ord FROM kept) THEN 'kept'
         WHEN EXISTS (SELECT 1 FROM claimed c WHERE c.identity = w.identity AND c.endpoint = w.endpoint AND c.params = w.params) THEN 'claimed'
         ELSE 'held' END AS outcome
       FROM wanted w ORDER BY w.ord`,
      [accountId, ...arrays(distinct), owner, freshness.maxAgeMs ?? null, freshness.since ?? null, leaseMs],
    );
    const outcomes = new Map(distinct.map((claim, i) => [keyOf(claim), rows[i]!.outcome]));
    return sections.map((claim) => outcomes.get(keyOf(claim))!);
  }

  async renew(owner: string, leaseMs: number): Promise<void> {
    const s = this.#s;
    await this.#db.query(`UPDATE ${s}.claims SET expires = ${s}.now_ms() + $2 WHERE owner = $1 AND expires > ${s}.now_ms()`, [
      owner,
      leaseMs,
    ]);
  }

  async releaseAll(owner: string): Promise<void> {
    await this.#db.query(`DELETE FROM ${this.#s}.claims WHERE owner = $1`, [owner]);
  }

  /** Removes `owner`'s claims on these sections (released, or given up). */
  async release(account: string, owner: string, sections: readonly SectionClaim[]): Promise<void> {
    const s = this.#s;
    await this.#db.query(
      `DELETE FROM ${s}.claims c USING unnest($3::text[], $4::text[], $5::text[]) AS x(identity, endpoint, params)
       WHERE c.account = (SELECT id FROM ${s}.accounts WHERE name = $1) AND c.owner = $2
         AND c.identity = x.identity AND c.endpoint = x.endpoint AND c.params = x.params`,
      [account, owner, ...arrays(sections)],
    );
  }

  async held(account: string, owner: string, sections: readonly SectionClaim[]): Promise<boolean[]> {
    const s = this.#s;
    const rows = await this.#db.query<{ held: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM ${s}.claims c
         WHERE c.account = (SELECT id FROM ${s}.accounts WHERE name = $1) AND c.identity = w.identity AND c.endpoint = w.endpoint
           AND c.params = w.params AND c.owner <> $2 AND c.expires > ${s}.now_ms()
       ) AS held
       FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS w(identity, endpoint, params, ord) ORDER BY w.ord`,
      [account, owner, ...arrays(sections)],
    );
    return rows.map((row) => row.held);
  }
}
