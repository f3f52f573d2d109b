import { describe, expect, it } from 'vitest';
import { murmur3x86_128 } from '../../src/sandbox/generate/murmur3.js';

const hex = (text: string) => {
  const bytes = new TextEncoder().encode(text);
  return murmur3x86_128(bytes, bytes.length)
    .map((word) => word.toString(16).padStart(8, '0'))
    .join('');
};

describe('MurmurHash3 x86_128, the seeds of the synthetic data', () => {
  // Reference digests (seed 0), printed the way the reference implementation's ports print h1..h4.
  it('matches the reference for inputs ending in every tail length class', () => {
    expect(hex('')).toBe('00000000000000000000000000000000');
    expect(hex('a')).toBe('a794933c5556b01b5556b01b5556b01b');
    expect(hex('hello')).toBe('2b2444a0db91def79adb31b69adb31b6');
    expect(hex('The quick brown fox jumps over the lazy dog')).toBe('2f1583c3ecee2c675d7bf66ce5e91d2c');
    expect(hex('place\u0000123 main st||21201')).toBe('b8bb7cc1c221d2020abd77c4a10617d2');
    expect(hex('héllo wörld ✓ 𝄞')).toBe('e9c71bfbfd5f9c99db9b814e72f76cdb');
  });
});
