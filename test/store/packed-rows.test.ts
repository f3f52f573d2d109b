import { describe, expect, it } from 'vitest';
import { packRows, unpackRows } from '../../src/store/sqlite/packed-rows.js';

/**
 * The lookup thread hands a block's rows over packed in one buffer (store/sqlite/packed-rows.ts):
 * every value the store's connection can read must come back as that connection gives it.
 */
describe('rows packed for the lookup thread', () => {
  it('gives back every value as it was: texts in any script, numbers, none, null, BLOBs', () => {
    const kept = [
      '[["address","1 Dyer Ave"],null]',
      1_764_000_000_123,
      '{"api_code":0,"result":{"city":"Zürich – 東京 😀"}}',
      undefined,
      undefined,
      null,
      '',
      'yesterday',
      1.5,
      -0,
      Buffer.from('{"api_code":204}'),
      '\ud800 a lone surrogate',
      10n,
    ];
    const back = unpackRows(packRows(kept));
    expect(back).toHaveLength(kept.length);
    kept.forEach((value, slot) => expect(back[slot]).toStrictEqual(value));
    expect(Buffer.isBuffer(back[10])).toBe(true);
  });

  it('moves one buffer: the texts’ bytes, not a copy of the values', () => {
    const texts = Array.from({ length: 300 }, (_, i) => `{"n":${i},"é":"${'x'.repeat(i)}"}`);
    const packed = packRows(texts);
    expect(packed.others).toBeUndefined();
    expect(packed.buffer.byteLength).toBe(13 * 300 + texts.reduce((size, text) => size + Buffer.byteLength(text), 0));
    expect(unpackRows(structuredClone(packed, { transfer: [packed.buffer] }))).toEqual(texts);
    expect(packed.buffer.byteLength).toBe(0);
  });
});
