import { hash } from 'node:crypto';

/**
 * sfc32: a small, fast generator seeded from a SHA-256 digest. Synthetic data must come out the same
 * in every run and process, so nothing here touches Math.random: one hash of the inputs seeds all
 * the draws for one result.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: Buffer) {
    this.a = seed.readUInt32LE(0);
    this.b = seed.readUInt32LE(4);
    this.c = seed.readUInt32LE(8);
    this.d = seed.readUInt32LE(12);
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
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

/**
 * SHA-256 of the parts. The one-shot form gives the same digest as a Hash object and costs a
 * fraction of it: building Hash objects was over a third of the sandbox's time.
 */
function digest(parts: readonly string[]): Buffer {
  return hash('sha256', parts.join('\u0000'), 'buffer');
}

/** A generator determined by its inputs alone. */
export function randomFor(...parts: string[]): Random {
  return new Random(digest(parts));
}

/** A stable number in [0, 1) for the inputs: for "a stable 3% of addresses" style decisions. */
export function fractionOf(...parts: string[]): number {
  return digest(parts).readUInt32LE(0) / 4294967296;
}

export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
