/**
 * MurmurHash3 x86_128 (Austin Appleby's reference, seed 0): a well-known non-cryptographic hash,
 * computed in JS because the seeds need no secrecy and a native digest per draw cost far more in
 * call overhead than in hashing. The four words come out as the reference's h1..h4.
 */

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const word = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);

/** Each lane's input word, scrambled the way the reference does before mixing it into its h. */
const scramble1 = (k: number) => Math.imul(rotl(Math.imul(k, C1), 15), C2);
const scramble2 = (k: number) => Math.imul(rotl(Math.imul(k, C2), 16), C3);
const scramble3 = (k: number) => Math.imul(rotl(Math.imul(k, C3), 17), C4);
const scramble4 = (k: number) => Math.imul(rotl(Math.imul(k, C4), 18), C1);

/** The hash of bytes[0, length) as four unsigned 32-bit words. */
export function murmur3x86_128(bytes: Uint8Array, length: number): [number, number, number, number] {
  let h1 = 0;
  let h2 = 0;
  let h3 = 0;
  let h4 = 0;
  const bodyEnd = length - (length & 15);
  for (let at = 0; at < bodyEnd; at += 16) {
    h1 ^= scramble1(word(bytes, at));
    h1 = (Math.imul((rotl(h1, 19) + h2) | 0, 5) + 0x561ccd1b) | 0;
    h2 ^= scramble2(word(bytes, at + 4));
    h2 = (Math.imul((rotl(h2, 17) + h3) | 0, 5) + 0x0bcaa747) | 0;
    h3 ^= scramble3(word(bytes, at + 8));
    h3 = (Math.imul((rotl(h3, 15) + h4) | 0, 5) + 0x96cd1c35) | 0;
    h4 ^= scramble4(word(bytes, at + 12));
    h4 = (Math.imul((rotl(h4, 13) + h1) | 0, 5) + 0x32ac3b17) | 0;
  }

  // The last 0-15 bytes fill the lanes' words from the low byte up; a lane gets mixed only if it got bytes.
  const tail = [0, 0, 0, 0];
  for (let at = bodyEnd; at < length; at += 1) {
    const offset = at - bodyEnd;
    tail[offset >> 2]! ^= bytes[at]! << ((offset & 3) * 8);
  }
  const tailLength = length - bodyEnd;
  if (tailLength > 12) h4 ^= scramble4(tail[3]!);
  if (tailLength > 8) h3 ^= scramble3(tail[2]!);
  if (tailLength > 4) h2 ^= scramble2(tail[1]!);
  if (tailLength > 0) h1 ^= scramble1(tail[0]!);

  h1 ^= length;
  h2 ^= length;
  h3 ^= length;
  h4 ^= length;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}
