import { describe, expect, it } from 'vitest';
import { KeyTable } from '../../src/batching/key-table.js';

describe('KeyTable', () => {
  it('finds what was set, forgets what was deleted, and replaces a value set twice', () => {
    const table = new KeyTable<number>(16);
    table.set('{"address":"1 Main St"}', 1);
    table.set('{"address":"2 Main St"}', 2);
    table.set('{"address":"1 Main St"}', 3);
    expect(table.get('{"address":"1 Main St"}')).toBe(3);
    expect(table.size).toBe(2);
    expect(table.delete('{"address":"1 Main St"}')).toBe(true);
    expect(table.delete('{"address":"1 Main St"}')).toBe(false);
    expect(table.get('{"address":"1 Main St"}')).toBeUndefined();
    expect(table.get('{"address":"2 Main St"}')).toBe(2);
  });

  it('holds far more keys than it started with, and stays right through a long churn', () => {
    const table = new KeyTable<number>(16);
    const live = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const key = `item ${i}`;
      table.set(key, i);
      live.set(key, i);
      // Keep about 3,000 alive, as deduplication does with items in flight.
      if (i >= 3_000) {
        const old = `item ${i - 3_000}`;
        expect(table.delete(old)).toBe(true);
        live.delete(old);
      }
    }
    expect(table.size).toBe(live.size);
    for (const [key, value] of live) expect(table.get(key)).toBe(value);
    expect(table.get('item 0')).toBeUndefined();
  });
});
