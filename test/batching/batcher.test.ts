import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/batching/batcher.js';
import { keySetOf } from '../../src/catalog/index.js';
import type { PendingItem } from '../../src/batching/batch.js';

const pending = (row: number, item: Record<string, string>): PendingItem => ({ prepared: { row, columns: {}, item }, duplicates: [] });
const rows = (batches: readonly { items: PendingItem[] }[]) => batches.map((batch) => batch.items.map((p) => p.prepared.row));

describe('Batcher', () => {
  it('never puts more than the batch size in one batch', () => {
    const batcher = new Batcher(3, 1_000);
    const ready = Array.from({ length: 7 }, (_, i) => batcher.add(pending(i + 1, { address: 'a', zipcode: '1' }))).flat();
    expect(rows(ready)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(rows(batcher.flush())).toEqual([[7]]);
  });

  it('keeps items with different key sets apart, without inventing keys', () => {
    const batcher = new Batcher(100, 1_000);
    batcher.add(pending(1, { address: 'a', zipcode: '1' }));
    batcher.add(pending(2, { address: 'b', unit: '2', zipcode: '1' }));
    batcher.add(pending(3, { address: 'c', zipcode: '1' }));
    const batches = batcher.flush();
    expect(rows(batches)).toEqual([[1, 3], [2]]);
    for (const batch of batches) {
      const keys = new Set(batch.items.map((p) => keySetOf(p.prepared.item)));
      expect(keys.size).toBe(1);
    }
    expect(batches[1]!.items[0]!.prepared.item).toEqual({ address: 'b', unit: '2', zipcode: '1' });
  });

  it('sends a rare key set when it has waited too long, so output order does not stall', () => {
    const batcher = new Batcher(100, 5);
    batcher.add(pending(1, { address: 'a', unit: '1' }));
    const sent = [];
    for (let row = 2; row <= 7; row++) sent.push(...batcher.add(pending(row, { address: 'x' })));
    expect(rows(sent)).toEqual([[1]]);
  });

  it('sends a group holding earlier rows before a batch that fills after it', () => {
    const batcher = new Batcher(3, 1_000);
    batcher.add(pending(1, { address: 'a' }));
    batcher.add(pending(2, { address: 'b', unit: '1' }));
    batcher.add(pending(3, { address: 'c' }));
    const ready = batcher.add(pending(4, { address: 'd' }));
    expect(rows(ready)).toEqual([[1, 3, 4]]); // row 2's group started later than the full batch
    batcher.add(pending(5, { address: 'e' }));
    batcher.add(pending(6, { address: 'f' }));
    expect(rows(batcher.add(pending(7, { address: 'g' })))).toEqual([[2], [5, 6, 7]]);
  });

  it('treats key order as irrelevant', () => {
    expect(keySetOf({ zipcode: '1', address: 'a' })).toBe(keySetOf({ address: 'b', zipcode: '2' }));
  });
});
