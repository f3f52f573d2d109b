import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, WINDOWS_FRESH_MS, type Store } from '../../src/store/index.js';
import { tempStorePath } from './helpers/temp-store.js';

const A = 'https://api.example.com key:aaaaaaaaaaaaaaaa';
const NOW = Date.UTC(2026, 10, 3, 1, 15);
const WINDOWS = [
  { periodSeconds: 1, limit: 20, remaining: 4, resetAt: NOW + 1000 },
  { periodSeconds: 86_400, limit: 15_000, remaining: 9_000, resetAt: NOW + 3_600_000 },
];

describe('remembered rate limits', () => {
  let store: Store;

  beforeEach(async () => {
    store = await openStore(tempStorePath());
  });
  afterEach(() => store.close());

  it('gives back what the service last reported', () => {
    store.saveWindows(A, WINDOWS, NOW);
    expect(store.loadWindows(A, NOW)).toEqual(WINDOWS);
    expect(store.loadWindows('https://api.example.com key:bbbbbbbbbbbbbbbb', NOW)).toBeUndefined();
  });

  it('renews a window whose reset has passed', () => {
    store.saveWindows(A, WINDOWS, NOW);
    expect(store.loadWindows(A, NOW + 2500)).toEqual([{ periodSeconds: 1, limit: 20, remaining: 20, resetAt: NOW + 3000 }, WINDOWS[1]]);
    expect(store.loadWindows(A, NOW + 1000)?.[0]).toEqual({ periodSeconds: 1, limit: 20, remaining: 20, resetAt: NOW + 2000 });
  });

  it('forgets windows once stale, keeps the later of two reports, and learns nothing from none', () => {
    store.saveWindows(A, WINDOWS, NOW);
    store.saveWindows(A, [{ ...WINDOWS[0]!, remaining: 0 }], NOW - 5000);
    store.saveWindows(A, [], NOW + 1);
    expect(store.loadWindows(A, NOW)).toEqual(WINDOWS);
    expect(store.loadWindows(A, NOW + WINDOWS_FRESH_MS)).toBeDefined();
    expect(store.loadWindows(A, NOW + WINDOWS_FRESH_MS + 1)).toBeUndefined();
  });
});
