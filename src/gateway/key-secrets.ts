import { createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * How a key's secret is kept: HMAC-SHA-256 under a salt of its own, `hmac-sha256:salt:hash`. A
 * secret is 256 random bits, not a password: nobody guesses it, and a stolen store's hashes cannot
 * be reversed by trying secrets either (2^256 of them), so a slow password hash would guard
 * nothing, and it cost every login, right or wrong, 83 ms of CPU and 32 MiB. Checking one now
 * takes a few microseconds, in constant time.
 */
const SCHEME = 'hmac-sha256';
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const SECRET_BYTES = 32;

/** A new secret: 256 random bits as base64url (43 characters, nothing a shell or a URL has to quote). */
export function newSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

const keyedHash = (secret: string, salt: Buffer) => createHmac('sha256', salt).update(secret).digest();

/** The secret as the store keeps it: `hmac-sha256:salt:hash`, the parts base64url. */
export function currentHash(secret: string): string {
  const salt = randomBytes(SALT_BYTES);
  return [SCHEME, salt.toString('base64url'), keyedHash(secret, salt).toString('base64url')].join(':');
}

/** currentHash, as `propdata keys` awaits it. */
export function hashSecret(secret: string): Promise<string> {
  return Promise.resolve(currentHash(secret));
}

/** Whether `stored` is a hash of the scheme propdata issued before this one (scrypt): checked slowly, once, and then replaced. */
export function isLegacyHash(stored: string): boolean {
  return stored.startsWith('scrypt:');
}

/**
 * Whether `secret` is the one a current hash (`hmac-sha256:…`) was made from, compared in constant
 * time; a hash of another scheme matches nothing here (isLegacyHash, legacySecretMatches).
 */
export function secretMatches(secret: string, stored: string): boolean {
  const [scheme, salt, hash, extra] = stored.split(':');
  if (scheme !== SCHEME || salt === undefined || hash === undefined || extra !== undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  if (expected.length !== HASH_BYTES) return false;
  return timingSafeEqual(keyedHash(secret, Buffer.from(salt, 'base64url')), expected);
}

/**
 * A hash no secret matches, checked for a key that does not exist: a failed login takes as long
 * whether the key exists or not, so the time does not tell which names are keys.
 */
export const NO_KEY_HASH = [SCHEME, Buffer.alloc(SALT_BYTES).toString('base64url'), Buffer.alloc(HASH_BYTES).toString('base64url')].join(
  ':',
);

/** 128 * N * r of the costliest hash propdata issued, with room: Node refuses a cost at its default limit of 32 MiB. */
const LEGACY_MAX_MEMORY = 64 * 1024 * 1024;

/**
 * Whether `secret` is the one a stored scrypt hash (`scrypt:N:r:p:salt:hash`, what propdata issued
 * before HMAC) was made from. Tens of ms and 32 MiB on libuv's pool: the gateway runs few at once
 * (Logins), and replaces the hash with a current one after the first success (KeyRing).
 */
export async function legacySecretMatches(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split(':');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const cost: ScryptOptions = { N: Number(n), r: Number(r), p: Number(p), maxmem: LEGACY_MAX_MEMORY };
  if (![cost.N, cost.r, cost.p].every(Number.isInteger) || expected.length === 0) return false;
  const derived = await new Promise<Buffer>((resolve, reject) => {
    scrypt(secret, Buffer.from(salt, 'base64url'), expected.length, cost, (error, key) => (error ? reject(error) : resolve(key)));
  });
  return timingSafeEqual(derived, expected);
}

/** A key's name: what a client sends as its API key, so nothing a Basic header or a log line would mangle. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` cannot be a key's name, or undefined. */
export function keyNameProblem(name: string): string | undefined {
  if (NAME.test(name)) return undefined;
  return `a key's name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit; got "${name}"`;
}
