import type { ClientKey, KeyStore } from '../store/key-store.js';
import { GATEWAY_DOOR } from '../policy/policy.js';
import { currentHash, isLegacyHash, legacySecretMatches, NO_KEY_HASH, secretMatches } from './key-secrets.js';

/** Too many logins of keys still under an old hash are being checked at once: the request may come back shortly. */
export class LoginsBusy extends Error {
  constructor() {
    super('too many logins are being checked at once: send the request again in a second');
  }
}

/** The hashes that open a key at `now`: its secret's, and the one before its rotation while its grace lasts. */
function hashesOf(key: ClientKey, now: number): string[] {
  const previous = key.previousSecretHash !== undefined && (key.previousValidUntil ?? 0) > now ? [key.previousSecretHash] : [];
  return [key.secretHash, ...previous];
}

/** Whether a key opens the gateway at `now`: not past its expiry. */
function keyOpen(key: ClientKey, now: number): boolean {
  return key.expires === undefined || key.expires > now;
}

/**
 * The live keys, as the store holds them, for the gateway to check credentials against: a keyed
 * hash (key-secrets.ts), microseconds a check, right or wrong. A key still under the scrypt hash of
 * an older propdata is checked with scrypt once, a few at a time (GATEWAY_DOOR), and its hash is
 * then moved over in the store. The keys are read again every `refreshMs`: a key added, changed or
 * revoked by `propdata keys` (on this host or, with a PostgreSQL store, another) is seen within that time.
 */
export class KeyRing {
  readonly #store: KeyStore;
  readonly #onProblem: (message: string) => void;
  readonly #now: () => number;
  #keys = new Map<string, ClientKey>();
  /** scrypt checks running, and those waiting for one of their places. */
  #legacyRunning = 0;
  readonly #legacyWaiting: (() => void)[] = [];

  constructor(store: KeyStore, onProblem: (message: string) => void = () => undefined, now: () => number = Date.now) {
    this.#store = store;
    this.#onProblem = onProblem;
    this.#now = now;
  }

  /** Reads the keys again; a key gone or revoked stops opening anything. */
  async refresh(): Promise<void> {
    const live = (await this.#store.list()).filter((key) => key.revoked === undefined);
    this.#keys = new Map(live.map((key) => [key.name, key]));
  }

  /** The live keys, by name. */
  get keys(): ReadonlyMap<string, ClientKey> {
    return this.#keys;
  }

  /**
   * The key these credentials open, or undefined: its secret, or the one before its rotation while
   * the grace lasts; none once it has expired. A name that is no live key is checked against a hash
   * all the same, so that the time taken does not tell which names are keys. Throws LoginsBusy when
   * a key under an old hash would wait too long for its scrypt check.
   */
  async authenticate(name: string, secret: string): Promise<ClientKey | undefined> {
    const key = this.#keys.get(name);
    const now = this.#now();
    if (!key || !keyOpen(key, now)) {
      secretMatches(secret, NO_KEY_HASH);
      return undefined;
    }
    for (const hash of hashesOf(key, now)) {
      if (!isLegacyHash(hash)) {
        if (secretMatches(secret, hash)) return key;
        continue;
      }
      if (!(await this.#legacyCheck(secret, hash))) continue;
      if (hash === key.secretHash) await this.#moveOver(key, secret);
      return key;
    }
    return undefined;
  }

  /** scrypt, a few at a time: each costs 32 MiB and tens of ms on libuv's 4 threads. */
  async #legacyCheck(secret: string, stored: string): Promise<boolean> {
    if (this.#legacyRunning < GATEWAY_DOOR.legacyChecksAtOnce) this.#legacyRunning += 1;
    else if (this.#legacyWaiting.length >= GATEWAY_DOOR.legacyChecksWaiting) throw new LoginsBusy();
    // A place is handed over by the check that ends: the count stays as it was.
    else await new Promise<void>((resolve) => this.#legacyWaiting.push(resolve));
    try {
      return await legacySecretMatches(secret, stored);
    } finally {
      const next = this.#legacyWaiting.shift();
      if (next) next();
      else this.#legacyRunning -= 1;
    }
  }

  /** The secret checked, its hash moves to the current scheme: in the store, and here at once. */
  async #moveOver(key: ClientKey, secret: string): Promise<void> {
    const moved = { ...key, secretHash: currentHash(secret) };
    // Revoked or issued anew while scrypt ran: the store keeps what it has, and the next refresh says what that is.
    const now = this.#keys.get(key.name);
    if (now?.secretHash !== key.secretHash) return;
    this.#keys.set(key.name, { ...now, secretHash: moved.secretHash });
    try {
      await this.#store.rehash(key.name, key.secretHash, moved.secretHash);
    } catch (error) {
      this.#onProblem(
        `key "${key.name}": its hash stays scrypt's until its next login: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
