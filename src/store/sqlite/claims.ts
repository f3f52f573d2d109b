import type { Database, Statement } from 'better-sqlite3';
import type { NameIds } from '../name-ids.js';
import type { ClaimResult, SectionClaim } from '../store-api.js';

type ClaimKey = [account: number, identity: string, endpoint: number, params: string];

/**
 * Sections being bought, and by whom until when: another run that needs one waits for its answer
 * instead of buying it too. Every method runs inside the caller's transaction; `claim` inside a
 * write transaction taken before its reads (BEGIN IMMEDIATE), so two runs never both claim one.
 */
export class ClaimTable {
  readonly #endpoints: NameIds;
  readonly #current: Statement<ClaimKey, { owner: string; expires: number }>;
  readonly #put: Statement<[...ClaimKey, string, number]>;
  readonly #renew: Statement<[number, string, number]>;
  readonly #remove: Statement<[...ClaimKey, string]>;
  readonly #lapse: Statement<[number]>;
  readonly #removeAll: Statement<[string]>;

  constructor(db: Database, endpoints: NameIds) {
    this.#endpoints = endpoints;
    const key = 'account = ? AND identity = ? AND endpoint = ? AND params = ?';
    this.#current = db.prepare<ClaimKey, { owner: string; expires: number }>(`SELECT owner, expires FROM claims WHERE ${key}`);
    this.#put = db.prepare(
      `INSERT INTO claims (account, identity, endpoint, params, owner, expires) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account, identity, endpoint, params) DO UPDATE SET owner = excluded.owner, expires = excluded.expires`,
    );
    this.#renew = db.prepare('UPDATE claims SET expires = ? WHERE owner = ? AND expires > ?');
    this.#remove = db.prepare(`DELETE FROM claims WHERE ${key} AND owner = ?`);
    this.#lapse = db.prepare('DELETE FROM claims WHERE expires <= ?');
    this.#removeAll = db.prepare('DELETE FROM claims WHERE owner = ?');
  }

  /**
   * Claims each section unless it is kept fresh (`kept`) or held by a live claim of another owner.
   * Lapsed claims of crashed runs are dropped first: the table holds only what is being bought.
   */
  claim(
    account: number,
    owner: string,
    sections: readonly SectionClaim[],
    { now, leaseMs, kept }: { now: number; leaseMs: number; kept: (section: SectionClaim) => boolean },
  ): ClaimResult[] {
    this.#lapse.run(now);
    return sections.map((section) => {
      if (kept(section)) return 'kept';
      const key: ClaimKey = [account, section.item, this.#endpoints.ensure(section.endpoint), section.params];
      // Lapsed claims are gone: any left is live.
      const holder = this.#current.get(...key)?.owner;
      if (holder !== undefined && holder !== owner) return 'held';
      this.#put.run(...key, owner, now + leaseMs);
      return 'claimed';
    });
  }

  renew(owner: string, leaseMs: number, now: number): void {
    this.#renew.run(now + leaseMs, owner, now);
  }

  releaseAll(owner: string): void {
    this.#removeAll.run(owner);
  }

  /** Removes `owner`'s claims on these sections (released, or settled by their answers). */
  release(account: number, owner: string, sections: readonly SectionClaim[]): void {
    for (const section of sections) {
      const endpoint = this.#endpoints.find(section.endpoint);
      if (endpoint !== undefined) this.#remove.run(account, section.item, endpoint, section.params, owner);
    }
  }

  held(account: number, owner: string, sections: readonly SectionClaim[], now: number): boolean[] {
    return sections.map((section) => {
      const endpoint = this.#endpoints.find(section.endpoint);
      const current = endpoint === undefined ? undefined : this.#current.get(account, section.item, endpoint, section.params);
      return current !== undefined && current.owner !== owner && current.expires > now;
    });
  }
}
