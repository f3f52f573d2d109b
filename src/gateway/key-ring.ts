import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ClientKey, KeyStore } from '../store/key-store.js';
import { NO_KEY_HASH, secretMatches } from './key-secrets.js';

/** A secret scrypt accepted, as this process remembers it: a keyed digest, never the secret. */
interface Verified {
  /** The stored hash it was checked against: a key issued again, or rotated past its grace, must be checked again. */
  hash: string;
  digest: Buffer;
}

/** The hashes that open a key at `now`: its secret's, and the one before its rotation while its grace lasts. */
function hashesOf(key: ClientKey, now: number): string[] {
  const previous = key.previousSecretHash !== undefined && (key.previousValidUntil ?? 0) > now ? [key.previousSecretHash] : [];
  return [key.secretHash, ...previous];
}

/** Whether a key opens the gateway at `now`: not past its expiry. */
export function keyOpen(key: ClientKey, now: number): boolean {
  return key.expires === undefined || key.expires > now;
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
  readonly #now: () => number;
  readonly #digestKey = randomBytes(32);
  #keys = new Map<string, ClientKey>();
  /** By key name and the hash checked: a rotating key has two secrets. */
  readonly #verified = new Map<string, Verified>();

  constructor(store: KeyStore, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** Reads the keys again; a key gone, revoked or issued anew loses what was remembered of it. */
  async refresh(): Promise<void> {
    const live = (await this.#store.list()).filter((key) => key.revoked === undefined);
    this.#keys = new Map(live.map((key) => [key.name, key]));
    const now = this.#now();
    for (const [slot, verified] of this.#verified) {
      const key = this.#keys.get(slot.slice(0, slot.indexOf('\n')));
      if (!key || !hashesOf(key, now).includes(verified.hash)) this.#verified.delete(slot);
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
   * The key these credentials open, or undefined: its secret, or the one before its rotation while
   * the grace lasts; none once it has expired. A name that is no live key costs a scrypt check all
   * the same, so that the time taken does not tell which names are keys.
   */
  async authenticate(name: string, secret: string): Promise<ClientKey | undefined> {
    const key = this.#keys.get(name);
    const now = this.#now();
    if (!key || !keyOpen(key, now)) {
      await secretMatches(secret, NO_KEY_HASH);
      return undefined;
    }
    const digest = this.#digest(secret);
    for (const hash of hashesOf(key, now)) {
      const verified = this.#verified.get(`${name}\n${hash}`);
      if (verified?.hash === hash && timingSafeEqual(verified.digest, digest)) return key;
    }
    for (const hash of hashesOf(key, now)) {
      if (!(await secretMatches(secret, hash))) continue;
      // Revoked or issued anew while scrypt ran: the next refresh would drop it, so it is not kept.
      if (this.#keys.get(name) === key) this.#verified.set(`${name}\n${hash}`, { hash, digest });
      return key;
    }
    return undefined;
  }
}
