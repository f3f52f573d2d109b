import type { Usage, UsageFigures } from './spend.js';

/**
 * The client keys of a gateway (`propdata serve`) and what each one spent, kept beside the answers:
 * gateways on several hosts that share a PostgreSQL store share its keys and budgets too. One
 * interface, two drivers, one test suite (test/store/contract), as for the Store itself. A secret
 * arrives here hashed (gateway/key-secrets.ts); the store never sees one.
 */
export interface KeyStore {
  /**
   * Adds a key. A revoked key of that name is issued again (its new hash and settings, its spend
   * history kept); a live one is left alone: false.
   */
  add(key: ClientKey): Promise<boolean>;
  /** Every key, revoked ones included, by name. */
  list(): Promise<ClientKey[]>;
  /**
   * Replaces a live key's stored hash `from` with `to` (the same secret, hashed anew: the gateway
   * moving an old scheme's hash over once it has checked the secret); false, changing nothing,
   * when the key was revoked or issued anew meanwhile.
   */
  rehash(name: string, from: string, to: string): Promise<boolean>;
  /** Revokes the live key of that name at `at`; false when there is none. */
  revoke(name: string, at: number): Promise<boolean>;
  /** What keys' calls bought and took from the store, as a gateway summed it (one row per key and endpoint a flush). */
  recordSpend(spends: readonly KeySpend[]): Promise<void>;
  /** USD at list price each key's calls bought from `since` on, every account together: the keys' budgets. */
  spentSince(since: number): Promise<Map<string, number>>;
  /** The spend by key, as `propdata usage --by key` shows it. */
  usage(query: KeyUsageQuery): Promise<Usage>;
}

/** A client key of a gateway. */
export interface ClientKey {
  /** What the client sends as its API key (HTTP Basic user), and what the spend is filed under. */
  name: string;
  /** The secret's keyed hash (`hmac-sha256:salt:hash`; an older key's may still be `scrypt:…`): never the secret itself. */
  secretHash: string;
  /** USD at list price the key may spend a UTC month; absent: no budget of its own (the account's still holds). */
  budgetMonth?: number;
  /** The endpoints it may call (`property/value`, or a level's `block/*`); absent: every one. */
  endpoints?: readonly string[];
  /** When it was issued (again), epoch ms. */
  created: number;
  /** When it was revoked; absent while it is live. */
  revoked?: number;
}

/**
 * One key's calls to one endpoint over a span, as `usage` counts them: the requests that reached
 * the service, their components, billed sections and cost at list price, and the items the store
 * answered instead and what they would have cost.
 */
export interface KeySpend extends UsageFigures {
  /** When the span ended, epoch ms (the gateway's clock). */
  at: number;
  key: string;
  /** Whose account paid (store/account.ts). */
  account: string;
  /** An endpoint, or an mget's components joined with commas, as the spend log names it. */
  endpoint: string;
}

export interface KeyUsageQuery {
  /** Epoch ms; absent: everything recorded. */
  since?: number;
  /** Absent: every account. */
  account?: string;
}
