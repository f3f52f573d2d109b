import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt's cost: 32 MiB and some tens of ms a check. A secret is 256 random bits, not a password
 * anyone could guess, so the cost guards only a stolen store's hashes; and the gateway checks a
 * key's secret with scrypt once, then against what it remembers (key-ring.ts).
 */
const COST = { N: 32_768, r: 8, p: 1 } as const;
/** 128 * N * r, with room: Node refuses a cost at its default limit of 32 MiB. */
const MAX_MEMORY = 64 * 1024 * 1024;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const SECRET_BYTES = 32;

const scryptAsync = (secret: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => {
    scrypt(secret, salt, length, options, (error, derived) => (error ? reject(error) : resolve(derived)));
  });

/** A new secret: 256 random bits as base64url (43 characters, nothing a shell or a URL has to quote). */
export function newSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

/** The secret as the store keeps it: `scrypt:N:r:p:salt:hash`, the parts base64url. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(secret, salt, HASH_BYTES, { ...COST, maxmem: MAX_MEMORY });
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join(':');
}

/**
 * Whether `secret` is the one `stored` was made from, compared in constant time. A hash this
 * gateway cannot read (another version's) matches nothing.
 */
export async function secretMatches(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split(':');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (![cost.N, cost.r, cost.p].every(Number.isInteger) || expected.length === 0) return false;
  const derived = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, { ...cost, maxmem: MAX_MEMORY });
  return timingSafeEqual(derived, expected);
}

/**
 * A hash no secret matches, checked for a key that does not exist: a failed login takes as long
 * whether the key exists or not, so the time does not tell which names are keys.
 */
export const NO_KEY_HASH = `scrypt:${COST.N}:${COST.r}:${COST.p}:${Buffer.alloc(SALT_BYTES).toString('base64url')}:${Buffer.alloc(HASH_BYTES).toString('base64url')}`;

/** A key's name: what a client sends as its API key, so nothing a Basic header or a log line would mangle. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` cannot be a key's name, or undefined. */
export function keyNameProblem(name: string): string | undefined {
  if (NAME.test(name)) return undefined;
  return `a key's name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit; got "${name}"`;
}
