import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ClientKey, KeyStore } from '../store/key-store.js';
import { NO_KEY_HASH, secretMatches } from './key-secrets.js';

/** A secret scrypt accepted, as this process remembers it: a keyed digest, never the secret. */
interface Verified {
  /** The stored hash it was checked against: a key issued again must be checked again. */
  hash: string;
  digest: Buffer;
}

/**
 * The live keys, as the store holds them, for the gateway to check credentials against. scrypt is
 * slow on purpose (tens of ms); a key's secret is checked with it once, and then against a digest
 * under a key of this process's own (HMAC-SHA-256, a microsecond), still in constant time. The
 * keys are read again every `refreshMs`: a key added or revoked by `propdata keys` (on this host or,
 * with a PostgreSQL store, another) is seen within that time, and a revoked key's digest is dropped.
 */
export class KeyRing {
  readonly #store: KeyStore;
  readonly #digestKey = randomBytes(32);
  #keys = new Map<string, ClientKey>();
  readonly #verified = new Map<string, Verified>();

  constructor(store: KeyStore) {
    this.#store = store;
  }

  /** Reads the keys again; a key gone, revoked or issued anew loses what was remembered of it. */
  async refresh(): Promise<void> {
    const live = (await this.#store.list()).filter((key) => key.revoked === undefined);
    this.#keys = new Map(live.map((key) => [key.name, key]));
    for (const [name, verified] of this.#verified) {
      if (this.#keys.get(name)?.secretHash !== verified.hash) this.#verified.delete(name);
    }
  }

  /** The live keys, by name. */
  get keys(): ReadonlyMap<string, ClientKey> {
    return this.#keys;
  }

  #digest(secret: string): Buffer {
    return createHmac('sha256', this.#digestKey).update(secret).digest();
  }

  /**
   * The key these credentials open, or undefined. A name that is no live key costs a scrypt check
   * all the same, so that the time taken does not tell which names are keys.
   */
  async authenticate(name: string, secret: string): Promise<ClientKey | undefined> {
    const key = this.#keys.get(name);
    if (!key) {
      await secretMatches(secret, NO_KEY_HASH);
      return undefined;
    }
    const digest = this.#digest(secret);
    const verified = this.#verified.get(name);
    if (verified?.hash === key.secretHash && timingSafeEqual(verified.digest, digest)) return key;
    if (!(await secretMatches(secret, key.secretHash))) return undefined;
    // Revoked or issued anew while scrypt ran: the next refresh would drop it, so it is not kept.
    if (this.#keys.get(name) === key) this.#verified.set(name, { hash: key.secretHash, digest });
    return key;
  }
}
