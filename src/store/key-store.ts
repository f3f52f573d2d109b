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
  /** Changes a live key's settings, its secret kept (a member absent: unchanged; null: removed); false when there is none. */
  update(name: string, changes: KeyChanges): Promise<boolean>;
  /**
   * Gives a live key a new secret (its hash); the one it had still opens it until `graceUntil`
   * (epoch ms; now or earlier: not at all). False when there is none.
   */
  rotate(name: string, secretHash: string, graceUntil: number): Promise<boolean>;
  /** What keys' calls bought and took from the store, as a gateway summed it (one row per key and endpoint a flush). */
  recordSpend(spends: readonly KeySpend[]): Promise<void>;
  /** USD at list price each key's calls bought from `since` on, every account together: the keys' budgets. */
  spentSince(since: number): Promise<Map<string, number>>;
  /** The spend by key, as `propdata usage --by key` shows it. */
  usage(query: KeyUsageQuery): Promise<Usage>;

  /**
   * Holds `hold.usd` of a key's month budget and of the account's for one call in flight, if both
   * have that much left: in one transaction under the budgets' lock (SQLite: the file's write lock;
   * PostgreSQL: an advisory lock), what is spent is read (the key's settled spend, the account's
   * spend log, every live hold) and the hold written. So calls on any number of gateways never pass
   * a budget together, as the pacer's reservations never pass a window.
   */
  reserve(hold: SpendHold): Promise<HoldOutcome>;
  /** The call of a hold is over: what it spent is recorded (as recordSpend) and its hold let go, in one transaction. */
  settle(id: string, spends: readonly KeySpend[]): Promise<void>;
  /** Extends holds of calls still running (or whose spend is still to be written) to `expires`. */
  renewHolds(ids: readonly string[], expires: number): Promise<void>;
}

/** A call's hold on the budgets it is bound by (KeyStore.reserve). */
export interface SpendHold {
  /** The gateway's own, unique: what settles it. */
  id: string;
  key: string;
  account: string;
  /** USD at list price held: the most the call may buy. */
  usd: number;
  /** The key's month budget, and the account's (--max-cost-month); absent: not bound by it. */
  keyBudget?: number;
  accountBudget?: number;
  /** The gateway's now (its clock, as key_spend's times): the budgets are for its UTC month. */
  now: number;
  /** When the hold lapses unless renewed or settled: a gateway killed mid-call holds nothing for long. */
  expires: number;
}

/** Held; or refused by the key's or the account's budget, with what it has spent (and holds) this month. */
export type HoldOutcome = { held: true } | { refused: 'key' | 'account'; spent: number };

/** What `propdata keys set` changes: absent, unchanged; null, removed. */
export interface KeyChanges {
  budgetMonth?: number | null;
  endpoints?: readonly string[] | null;
  expires?: number | null;
  ratePerMinute?: number | null;
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
  /** When it stops opening the gateway, epoch ms; absent: never. */
  expires?: number;
  /** Its share of the account's rate: components a minute at most; absent: no share of its own. */
  ratePerMinute?: number;
  /** The secret it had before `keys rotate`, as hashed, and until when it still opens the gateway. */
  previousSecretHash?: string;
  previousValidUntil?: number;
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
