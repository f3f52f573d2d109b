import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ENDPOINTS,
  findEndpoint,
  isEndpointName,
  itemRequirements,
  oneOfMessage,
  unmetRequirements,
  type EndpointName,
} from '../../src/catalog/index.js';
import { createPreparer } from '../../src/input/prepare.js';
import { parseGet, RequestRejected } from '../../src/wire/request-validation.js';

const endpoint = (name: EndpointName) => findEndpoint(name)!;
const names = (requirements: ReturnType<typeof itemRequirements>) =>
  requirements.map((requirement) => `${requirement.kind}:${requirement.anyOf.join('|')}`);

describe('the item rule, stated once in the catalog', () => {
  it('a property item needs an address or a slug; an area item each of its identifiers', () => {
    expect(names(itemRequirements('property', [endpoint('property/value')]))).toEqual(['identifier:address|slug']);
    expect(names(itemRequirements('block', [endpoint('block/crime')]))).toEqual(['identifier:block_id']);
    expect(names(itemRequirements('reports', []))).toEqual([]);
  });

  it('adds the endpoints\' "at least one of" and required parameters, in endpoint order', () => {
    const adjusted = endpoint('property/value_details_adjusted');
    const mget = endpoint('property/component_mget');
    expect(names(itemRequirements('property', [adjusted, mget]))).toEqual([
      'identifier:address|slug',
      'one-of:add_beds|add_baths|add_sqft|add_pools',
      'param:components',
    ]);
    const [, oneOf] = itemRequirements('property', [adjusted]);
    expect(oneOfMessage(oneOf!)).toBe('property/value_details_adjusted needs at least one of add_beds, add_baths, add_sqft, add_pools');
  });

  it('reports what an item leaves unmet', () => {
    const requirements = itemRequirements('property', [endpoint('property/value_details_adjusted')]);
    expect(names(unmetRequirements(requirements, (name) => name === 'slug'))).toEqual(['one-of:add_beds|add_baths|add_sqft|add_pools']);
    expect(unmetRequirements(requirements, (name) => name === 'address' || name === 'add_pools')).toEqual([]);
  });

  it('the preparer and the sandbox refuse the same items', () => {
    const cases: [EndpointName, Record<string, string>][] = [
      ['property/value', { zipcode: '90274' }],
      ['property/value', { address: '1 Main St' }],
      ['property/value_details_adjusted', { address: '1 Main St' }],
      ['property/value_details_adjusted', { slug: 'x', add_sqft: '100' }],
      ['block/crime', {}],
      ['block/crime', { block_id: '060376703241005' }],
    ];
    for (const [name, columns] of cases) {
      const target = endpoint(name);
      const prepared = createPreparer({ level: target.level, endpoints: [target], fixedParams: {}, map: {} })({ row: 1, columns });
      let refused = false;
      try {
        parseGet(target, new URLSearchParams(columns), true);
      } catch (error) {
        if (!(error instanceof RequestRejected)) throw error;
        refused = true;
      }
      expect({ name, columns, refused: 'invalid' in prepared }).toEqual({ name, columns, refused });
    }
  });
});

describe('EndpointName', () => {
  it('is derived from the catalog: every endpoint has one, and nothing else is one', () => {
    for (const { name } of ENDPOINTS) expect(isEndpointName(name)).toBe(true);
    expect(isEndpointName('property/valu')).toBe(false);
    expect(isEndpointName('property/value-within-block')).toBe(false);
    expectTypeOf<'property/block_crime'>().toExtend<EndpointName>();
    expectTypeOf<'msa/component_mget'>().toExtend<EndpointName>();
    expectTypeOf<'property/zip_hcri'>().toExtend<EndpointName>();
    expectTypeOf<'property/valu'>().not.toExtend<EndpointName>();
  });
});
