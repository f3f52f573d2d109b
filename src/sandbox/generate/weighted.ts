import type { Random } from './random.js';

/** One of the entries, each as likely as its weight. */
export function pickWeighted<T extends { weight: number }>(random: Random, entries: readonly T[]): T {
  let point = random.next() * entries.reduce((total, entry) => total + entry.weight, 0);
  for (const entry of entries) {
    point -= entry.weight;
    if (point < 0) return entry;
  }
  return entries.at(-1)!;
}
