import { describe, expect, it } from 'vitest';
import { chunksForItems } from '../../src/client/match-chunks.js';

const items = [
  { address: '1 Main St', zipcode: '21201', meta: 'a' },
  { address: '2 Main St', zipcode: '21201', meta: 'b' },
  { address: '3 Main St', zipcode: '21201', meta: 'c' },
];
const withMeta = (meta: string) => ({ address_info: { address_full: 'resolved' }, meta });
const asSent = (item: Record<string, unknown>) => ({ address_info: { address: 'RESOLVED', status: { requested_item: item } } });

describe('chunksForItems', () => {
  it('takes one chunk per item as it comes, in order, without reading them', () => {
    const chunks = [null, 7, withMeta('z')];
    expect(chunksForItems(items, chunks)).toBe(chunks);
  });

  it('matches fewer chunks by their echoed meta, at the top level or inside the info member', () => {
    const second = { address_info: { status: { requested_item: { meta: 'b' } } } };
    expect(chunksForItems(items, [withMeta('c'), second])).toEqual([undefined, second, withMeta('c')]);
  });

  it('matches by the identifiers the chunk repeats as sent, not by the resolved address', () => {
    const { meta: _a, ...first } = items[0]!;
    const { meta: _c, ...third } = items[2]!;
    expect(chunksForItems(items, [asSent(first), asSent(third)])).toEqual([asSent(first), undefined, asSent(third)]);
    const block = { block_info: { block_id: '060376703241005' }, 'block/crime': { api_code: 0 } };
    expect(chunksForItems([{ block_id: '060376703241004' }, { block_id: '060376703241005' }], [block])).toEqual([undefined, block]);
  });

  it('takes surplus chunks for the items they name and drops the rest', () => {
    const stray = withMeta('zz');
    expect(chunksForItems(items.slice(0, 2), [withMeta('b'), stray, withMeta('a')])).toEqual([withMeta('a'), withMeta('b')]);
  });

  it('leaves an item without a chunk when no chunk, or more than one, names it alone', () => {
    const alike = [
      { address: '1 Main St', zipcode: '21201', add_beds: 1 },
      { address: '1 Main St', zipcode: '21201', add_beds: 2 },
      { address: '9 Main St', zipcode: '21201', add_beds: 1 },
    ];
    const same = asSent({ address: '1 Main St', zipcode: '21201' });
    // Both first items match `same`: neither can be told to be its.
    expect(chunksForItems(alike, [same, { 'property/value': { api_code: 0 } }])).toEqual([undefined, undefined, undefined]);
    // A field they share that differs rules a match out.
    expect(chunksForItems(items, [asSent({ address: '1 Main St', zipcode: '99999' })])).toEqual([undefined, undefined, undefined]);
    // Two chunks naming one item: neither is taken.
    expect(chunksForItems(items.slice(0, 1), [withMeta('a'), withMeta('a')])).toEqual([undefined]);
    expect(chunksForItems(items, [])).toEqual([undefined, undefined, undefined]);
  });
});
