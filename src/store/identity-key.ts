/**
 * The number an item is found by in the store (the SQLite file's items and claims, the PostgreSQL
 * database's items): 53 bits made from its identity (cyrb53, a public-domain string hash: two
 * 32-bit multiply-xor lanes), so that the index holds a number per item instead of a second copy of
 * its identity, 100 bytes or more. Different identities may share a key: every lookup by key also
 * compares the identity. Stored in both drivers' stores: never change the function.
 */
export function identityKey(identity: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < identity.length; i += 1) {
    const code = identity.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
