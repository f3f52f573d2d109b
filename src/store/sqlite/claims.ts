import type { Database, Statement } from 'better-sqlite3';
import type { NameIds } from '../name-ids.js';
import { decideClaim, distinctSections, isLive, takes, type ClaimContext, type ClaimRow, type SectionState } from '../claim-protocol.js';
import type { ClaimResult, SectionClaim } from '../store-api.js';
import { identityKey } from '../identity-key.js';

/**
 * Where a claim is: the item by its key (identity-key.ts), not its identity. A claim row is then
 * some 30 bytes instead of 130: the claims of the requests in flight (thousands at full speed) sit
 * on a few pages, which each claim and each answer's release change, instead of spreading over
 * dozens (schema 6: a first run 4% faster). Two identities with one key (1 in 2^53 a pair) share a
 * claim: one waits for the other's answer, finds nothing, and claims its own; at worst a section
 * claimed by both in one run is released with the first's answer, and another job may buy it too.
 */
type ClaimKey = [account: number, key: number, endpoint: number, params: string];

/** A claim as the file keeps it: its owner by number (owners: NameIds). */
interface StoredClaim {
  owner: number;
  expires: number;
}

/** The claim as the protocol reads it: owners compared by their numbers, written as text. */
const claimRow = (stored: StoredClaim | undefined): ClaimRow | undefined =>
  stored && { owner: String(stored.owner), expires: stored.expires };

/**
 * The claims' state in the file (PROTOCOL.md): whose each section is, until when. Every method runs
 * inside the caller's transaction; `claim` inside a write transaction taken before its reads (BEGIN
 * IMMEDIATE: the file's one lock, held from the first read to the commit), so the protocol's
 * decision stands when it is written. The table holds only what is being bought (hundreds of rows):
 * a run's claims are renewed and released by reading all of it.
 */
export class ClaimTable {
  readonly #endpoints: NameIds;
  readonly #owners: NameIds;
  readonly #current: Statement<ClaimKey, StoredClaim>;
  readonly #put: Statement<[...ClaimKey, number, number]>;
  readonly #renew: Statement<[number, number]>;
  readonly #remove: Statement<[...ClaimKey, number]>;
  readonly #lapse: Statement<[number]>;
  readonly #removeAll: Statement<[number]>;
  readonly #othersClaim: Statement<[number, number], number>;

  constructor(db: Database, endpoints: NameIds, owners: NameIds) {
    this.#endpoints = endpoints;
    this.#owners = owners;
    const where = 'account = ? AND key = ? AND endpoint = ? AND params = ?';
    this.#current = db.prepare<ClaimKey, StoredClaim>(`SELECT owner, expires FROM claims WHERE ${where}`);
    this.#put = db.prepare(
      `INSERT INTO claims (account, key, endpoint, params, owner, expires) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account, key, endpoint, params) DO UPDATE SET owner = excluded.owner, expires = excluded.expires`,
    );
    this.#renew = db.prepare('UPDATE claims SET expires = ? WHERE owner = ?');
    this.#remove = db.prepare(`DELETE FROM claims WHERE ${where} AND owner = ?`);
    this.#lapse = db.prepare('DELETE FROM claims WHERE expires <= ?');
    this.#removeAll = db.prepare('DELETE FROM claims WHERE owner = ?');
    // Whether anyone else claims anything of the account: a run alone on its store (every first
    // run into a new one) then asks nothing of each section.
    this.#othersClaim = db
      .prepare<[number, number], number>('SELECT EXISTS (SELECT 1 FROM claims WHERE account = ? AND owner <> ?)')
      .pluck();
  }

  /**
   * Each section decided by the protocol (decideClaim) from its claim and its kept section
   * (`kept`), and written when it becomes `owner`'s. Lapsed claims are read before they are
   * dropped (a taking over is said), and dropped a lease after they lapsed: an owner back from
   * losing the store renews what nobody took meanwhile (rule 3).
   */
  claim(
    account: number,
    sections: readonly SectionClaim[],
    context: ClaimContext & { leaseMs: number; kept: (section: SectionClaim) => SectionState['kept'] },
  ): ClaimResult[] {
    const owner = this.#owners.ensure(context.owner);
    const decide = { ...context, owner: String(owner) };
    const { distinct, place } = distinctSections(sections);
    const outcomes = distinct.map((section) => {
      const key: ClaimKey = [account, identityKey(section.item), this.#endpoints.ensure(section.endpoint), section.params];
      const outcome = decideClaim({ claim: claimRow(this.#current.get(...key)), kept: context.kept(section) }, decide);
      if (takes(outcome)) this.#put.run(...key, owner, context.now + context.leaseMs);
      return outcome;
    });
    this.#lapse.run(context.now - Math.max(context.leaseMs, context.graceMs ?? 0));
    return place.map((i) => outcomes[i]!);
  }

  /** Every claim `owner` holds, lapsed or not: a lapsed one nobody took over is still its own (rule 3). */
  renew(owner: string, leaseMs: number, now: number): void {
    const id = this.#owners.find(owner);
    if (id !== undefined) this.#renew.run(now + leaseMs, id);
  }

  releaseAll(owner: string): void {
    const id = this.#owners.find(owner);
    if (id !== undefined) this.#removeAll.run(id);
  }

  /** Removes `owner`'s claims on these sections (released, or settled by their answers). */
  release(account: number, owner: string, sections: readonly SectionClaim[]): void {
    const id = this.#owners.find(owner);
    if (id === undefined) return;
    for (const section of sections) {
      const endpoint = this.#endpoints.find(section.endpoint);
      if (endpoint !== undefined) this.#remove.run(account, identityKey(section.item), endpoint, section.params, id);
    }
  }

  held(account: number, owner: string, sections: readonly SectionClaim[], now: number, graceMs = 0): boolean[] {
    const id = this.#owners.find(owner);
    if (this.#othersClaim.get(account, id ?? 0) === 0) return sections.map(() => false);
    return sections.map((section) => {
      const endpoint = this.#endpoints.find(section.endpoint);
      const current = endpoint === undefined ? undefined : this.#current.get(account, identityKey(section.item), endpoint, section.params);
      return current !== undefined && current.owner !== id && isLive(claimRow(current), now, graceMs);
    });
  }
}
