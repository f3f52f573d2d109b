import type { SectionClaim } from '../store/store-api.js';

const claimKey = (claim: SectionClaim) => `${claim.item}\n${claim.endpoint}\n${claim.params}`;

/** Which job of a session holds each section it claimed, when its jobs claim under the session's one name. */
export type SessionHolders = Map<string, JobClaims>;

/**
 * The claims one job holds: taken and neither settled by an answer written to the store nor given
 * back. When the session's jobs claim under one name (a gateway's, the same after a restart so
 * that the next one takes over what a killed one was buying), the store cannot tell them apart:
 * each section is then held by one job in memory (`holders`), and another job of the session waits
 * for its answer as it would for another process's.
 */
export class JobClaims {
  readonly #unsettled = new Map<string, SectionClaim>();
  readonly #holders: SessionHolders | undefined;

  constructor(holders?: SessionHolders) {
    this.#holders = holders;
  }

  /** Whether another job of the session holds this section now. */
  heldByAnother(claim: SectionClaim): boolean {
    const holder = this.#holders?.get(claimKey(claim));
    return holder !== undefined && holder !== this;
  }

  /** Marks the sections this job's before the store is asked; false (nothing marked) when another job of the session holds one. */
  reserve(claims: readonly SectionClaim[]): boolean {
    if (claims.some((claim) => this.heldByAnother(claim))) return false;
    for (const claim of claims) this.#holders?.set(claimKey(claim), this);
    return true;
  }

  /** The store gave them to this job. */
  taken(claims: readonly SectionClaim[]): void {
    for (const claim of claims) this.#unsettled.set(claimKey(claim), claim);
  }

  /** Whether the job holds every one of these sections now (claimed as it looked the item up). */
  holds(claims: readonly SectionClaim[]): boolean {
    return claims.every((claim) => this.#unsettled.has(claimKey(claim)));
  }

  /** Settled (their answer written), given back, or not taken after all: no longer this job's. */
  dropped(claims: readonly SectionClaim[]): void {
    for (const claim of claims) {
      const key = claimKey(claim);
      this.#unsettled.delete(key);
      if (this.#holders?.get(key) === this) this.#holders.delete(key);
    }
  }

  /** Those of `claims` no other job of the session holds: what this job may settle or give back. */
  mine(claims: readonly SectionClaim[]): SectionClaim[] {
    return claims.filter((claim) => !this.heldByAnother(claim));
  }

  /** How many sections the job still holds. */
  get held(): number {
    return this.#unsettled.size;
  }

  /** What the job still holds. */
  get unsettled(): SectionClaim[] {
    return [...this.#unsettled.values()];
  }
}
