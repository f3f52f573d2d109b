import { describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { singleEndpointTarget, targetForList } from '../../src/model/query-target.js';
import { itemRefOf } from '../../src/model/section-refs.js';

const VALUE = singleEndpointTarget(findEndpoint('property/value')!);

describe('item refs', () => {
  // Every store on disk files its answers under this text (and a key hashed from it): a change to
  // it, however harmless it looks, finds nothing a user kept and buys it all again.
  it('names an item by the very text stores already hold: level, then identifiers in order, meta left out', () => {
    const item = { address: '43 Valmonte "Plaza"', meta: 'crm-1', unit: 7, zipcode: '90274' };
    expect(itemRefOf(VALUE, item).item).toBe('["property",[["address","43 Valmonte \\"Plaza\\""],["unit",7],["zipcode","90274"]]]');
    expect(itemRefOf(VALUE, {}).item).toBe('["property",[]]');
  });

  it('files one section the same whether asked alone or in an mget', () => {
    const item = { address: '43 Valmonte Plaza', zipcode: '90274' };
    const alone = itemRefOf(VALUE, item);
    const inMget = itemRefOf(targetForList('property/value,property/rental_value'), item);
    expect(inMget.item).toBe(alone.item);
    expect(inMget.sections[0]).toEqual(alone.sections[0]);
    expect(alone.sections[0]).toEqual({ endpoint: 'v2/property/value', params: '' });
  });
});
