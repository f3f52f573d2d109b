import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { itemKey, propertyChunk } from './helpers/chunks.js';
import { tempStorePath } from './helpers/temp-store.js';

const A = 'https://api.example.com key:aaaaaaaaaaaaaaaa';
const B = 'https://api.example.com key:bbbbbbbbbbbbbbbb';
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 3);
const FOREVER = { maxAgeMs: 1000 * DAY, now: NOW };

function fill(store: Store, account: string, count: number, endpoints: string[], at: number): void {
  const answers = store.answers(account);
  store.transaction(() => {
    for (let i = 0; i < count; i += 1) answers.put(itemKey(`${i} Main St`), endpoints, propertyChunk(`${i} Main St`, endpoints), at);
  });
}

describe('store upkeep', () => {
  let store: Store;

  beforeEach(async () => {
    store = await openStore(tempStorePath());
    fill(store, A, 30, ['property/value', 'property/school'], NOW - 100 * DAY);
    fill(store, A, 10, ['property/value'], NOW - DAY);
    fill(store, B, 5, ['property/flood'], NOW);
    store.saveWindows(A, [{ periodSeconds: 60, limit: 250, remaining: 200, resetAt: NOW + 1000 }], NOW);
    store.saveWindows(B, [{ periodSeconds: 60, limit: 250, remaining: 200, resetAt: NOW + 1000 }], NOW);
    store.recordRequest({
      at: NOW,
      run: 'r',
      account: A,
      endpoint: 'property/value',
      items: 10,
      components: 10,
      status: 200,
      billed: 10,
      cost: 2.5,
    });
  });
  afterEach(() => store.close());

  it('says what it holds per account and endpoint', () => {
    const info = store.info();
    expect(info.path).toBe(store.path);
    expect(info.bytes).toBeGreaterThan(0);
    expect(info.requests).toBe(1);
    expect(info.answers).toEqual([
      { account: A, endpoint: 'property/school', answers: 30, oldest: NOW - 100 * DAY, newest: NOW - 100 * DAY },
      { account: A, endpoint: 'property/value', answers: 30, oldest: NOW - 100 * DAY, newest: NOW - DAY },
      { account: B, endpoint: 'property/flood', answers: 5, oldest: NOW, newest: NOW },
    ]);
  });

  it('prunes answers older than asked, and only those', () => {
    // Items 0-9 were answered again a day ago for property/value: their old property/school goes.
    expect(store.prune(90 * DAY, NOW)).toBe(50);
    const a = store.answers(A);
    expect(a.get(itemKey('3 Main St'), ['property/value'], FOREVER)).toBeDefined();
    expect(a.get(itemKey('3 Main St'), ['property/value', 'property/school'], FOREVER)).toBeUndefined();
    expect(a.get(itemKey('20 Main St'), ['property/value'], FOREVER)).toBeUndefined();
    expect(store.info().answers.map((row) => [row.endpoint, row.answers])).toEqual([
      ['property/value', 10],
      ['property/flood', 5],
    ]);
    expect(store.prune(90 * DAY, NOW)).toBe(0);
  });

  it('clears one account, or all; spend records stay', () => {
    expect(store.clear({ account: A })).toBe(60);
    expect(store.loadWindows(A, NOW)).toBeUndefined();
    expect(store.loadWindows(B, NOW)).toBeDefined();
    expect(store.info().answers.map((row) => row.account)).toEqual([B]);
    expect(store.clear({ account: 'https://never.example.com key:0' })).toBe(0);
    expect(store.clear({ allAccounts: true })).toBe(5);
    expect(store.info().answers).toEqual([]);
    expect(store.loadWindows(B, NOW)).toBeUndefined();
    expect(store.usage({ by: 'run' }).total.requests).toBe(1);
  });

  it('gives the room back to the file system', () => {
    fill(store, B, 3000, ['property/value', 'property/school'], NOW);
    const full = store.bytes();
    store.clear({ allAccounts: true });
    expect(store.bytes()).toBeLessThan(full / 4);
  });
});
