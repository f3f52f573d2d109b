import { murmur3x86_128 } from './murmur3.js';

/**
 * sfc32: a small, fast generator seeded from a MurmurHash3 digest. Synthetic data must come out the same
 * in every run and process, so nothing here touches Math.random: one hash of the inputs seeds all
 * the draws for one result.
 */
export class Random {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor([a, b, c, d]: readonly [number, number, number, number]) {
    this.#a = a;
    this.#b = b;
    this.#c = c;
    this.#d = d;
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** Whole number in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  float(min: number, max: number, decimals = 2): number {
    return round(min + this.next() * (max - min), decimals);
  }

  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)] as T;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

/** Reused for every digest: requests are answered one at a time, and a buffer per digest was garbage. */
let scratch = new Uint8Array(256);
const encoder = new TextEncoder();

/** UTF-8 of the text written at `at`; returns where it ends. Nearly every input is ASCII, copied without a call out. */
function writeUtf8(text: string, at: number): number {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) return at - index + encoder.encodeInto(text, scratch.subarray(at - index)).written;
    scratch[at + index] = code;
  }
  return at + text.length;
}

/** MurmurHash3 x86_128 of the parts' UTF-8, joined by NUL. */
function digest(parts: readonly string[]): [number, number, number, number] {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  const needed = parts.reduce((total, part) => total + 3 * part.length + 1, 0);
  if (needed > scratch.length) scratch = new Uint8Array(2 * needed);
  let length = 0;
  for (let index = 0; index < parts.length; index += 1) {
    if (index > 0) scratch[length++] = 0;
    length = writeUtf8(parts[index]!, length);
  }
  return murmur3x86_128(scratch, length);
}

/** A generator determined by its inputs alone. */
export function randomFor(...parts: string[]): Random {
  return new Random(digest(parts));
}

/** A stable number in [0, 1) for the inputs: for "a stable 3% of addresses" style decisions. */
export function fractionOf(...parts: string[]): number {
  return digest(parts)[0] / 4294967296;
}

export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
