import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEVEL_SPECS, checkIdentifier } from '../../src/catalog/index.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { call, dataSandbox, VALMONTE } from './http.js';

describe('400: requests that break the spec’s request rules (--strict)', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await dataSandbox({ strict: true });
  });
  afterAll(() => sandbox.close());

  const rejected = async (path: string, options: Parameters<typeof call>[2], expected: RegExp) => {
    const reply = await call(sandbox, path, options);
    expect(reply.status, reply.text).toBe(400);
    expect(reply.json).toEqual({ code: 400, message: expect.stringMatching(expected) });
    expect(reply.headers.get('x-ratelimit-limit')).toBeNull();
  };

  it.each([
    [
      'wrong Content-Type',
      '/v2/property/value',
      { body: JSON.stringify([VALMONTE]), contentType: 'text/plain' },
      /Content-Type must be application\/json/,
    ],
    ['body not JSON', '/v2/property/value', { body: '[{', contentType: 'application/json' }, /not valid JSON/],
    ['body not an array', '/v2/property/value', { body: VALMONTE }, /JSON array/],
    ['no items', '/v2/property/value', { body: [] }, /1 to 100 items, got 0/],
    ['101 items', '/v2/property/value', { body: Array(101).fill(VALMONTE) }, /1 to 100 items, got 101/],
    ['an item that is not an object', '/v2/property/value', { body: [VALMONTE, 'x'] }, /item 1: must be a JSON object/],
    [
      'differing key sets',
      '/v2/property/value',
      { body: [VALMONTE, VALMONTE, { address: '1 Main St', city: 'Boston', state: 'MA' }] },
      /item 2: keys .* differ from item 0/,
    ],
    [
      'property item without address or slug',
      '/v2/property/value',
      { body: [{ zipcode: '90274' }] },
      /item 0: address or slug is required/,
    ],
    [
      '5-digit zipcode',
      '/v2/property/value',
      { body: [VALMONTE, { address: '1 Main St', zipcode: '9027' }] },
      /item 1: zipcode must be 5 digits, got "9027"/,
    ],
    [
      'state that is no state',
      '/v2/property/value',
      { body: [{ address: '1 Main St', city: 'X', state: 'Atlantis' }] },
      /item 0: state must be/,
    ],
    [
      '15-digit block_id',
      '/v2/block/crime',
      { body: [{ block_id: '060376703022003' }, { block_id: '123' }] },
      /item 1: block_id must be 15 digits, got "123"/,
    ],
    ['missing block_id', '/v2/block/crime', { body: [{ meta: 'x' }] }, /item 0: block_id is required/],
    ['unknown key in an item', '/v2/property/value', { body: [{ ...VALMONTE, colour: 'red' }] }, /item 0: unknown key "colour"/],
    ['a parameter of another endpoint', '/v2/property/value', { body: [{ ...VALMONTE, add_beds: 1 }] }, /item 0: unknown key "add_beds"/],
    [
      'an identifier of another level',
      '/v2/block/crime',
      { body: [{ block_id: '060376703022003', zipcode: '90274' }] },
      /unknown key "zipcode"/,
    ],
    ['an object as identifier', '/v2/property/value', { body: [{ address: { street: 'x' } }] }, /item 0: address must be a string/],
    ['GET without address or slug', '/v2/property/value', { query: { zipcode: '90274' } }, /query string: address or slug is required/],
    ['GET with an unknown key', '/v2/property/value', { query: { ...VALMONTE, foo: 'bar' } }, /query string: unknown key "foo"/],
    [
      'identifiers in the query of a POST',
      '/v2/property/value',
      { body: [VALMONTE], query: { zipcode: '90274' } },
      /"zipcode" is not a parameter/,
    ],
  ] as const)('%s', async (_name, path, options, expected) => {
    await rejected(path, options, expected);
  });

  it.each([
    ['value_details_adjusted without adjustment', { ...VALMONTE }, /needs at least one of add_beds, add_baths, add_sqft, add_pools/],
    ['add_pools other than 1', { ...VALMONTE, add_pools: 2 }, /add_pools accepts only 1/],
    ['add_baths not a half step', { ...VALMONTE, add_baths: 0.3 }, /add_baths must be a whole or half number/],
    ['add_beds not whole', { ...VALMONTE, add_beds: 1.5 }, /add_beds must be a whole number/],
    ['add_sqft not a number', { ...VALMONTE, add_sqft: 'lots' }, /add_sqft must be a number/],
  ])('parameters by the catalog rules: %s', async (_name, item, expected) => {
    const reply = await call(sandbox, '/v2/property/value_details_adjusted', { query: item });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.json.message).toMatch(expected);
  });

  it('names the item whose parameter breaks a rule, and lets the item value win over the query string', async () => {
    const items = [
      { ...VALMONTE, add_beds: '' },
      { ...VALMONTE, add_beds: 2.5 },
    ];
    await rejected(
      '/v2/property/value_details_adjusted',
      { body: items, query: { add_beds: 1 } },
      /item 1: add_beds must be a whole number/,
    );
    const reply = await call(sandbox, '/v2/property/value_details_adjusted', {
      body: [{ ...VALMONTE, add_beds: 3 }],
      query: { add_beds: 1 },
    });
    expect(reply.status).toBe(200);
    const details = (await call(sandbox, '/v2/property/details', { query: VALMONTE })).json[0]['property/details'].result.property;
    expect(reply.json[0]['property/value_details_adjusted'].result.adjusted_beds_to).toBe(details.number_of_bedrooms + 3);
  });

  it('checks dates by the catalog: adjust_to_date must be the first of a month', async () => {
    await rejected(
      '/v2/property/value_hpi_adjusted',
      { query: { ...VALMONTE, adjust_to_date: '2024-03-15' } },
      /adjust_to_date must be the first day of a month/,
    );
    await rejected(
      '/v2/property/value_hpi_adjusted',
      { body: [{ ...VALMONTE, client_date: '2024-13-01' }] },
      /item 0: client_date must be an ISO date/,
    );
    await rejected(
      '/v2/block/hcri',
      { query: { block_id: '060376703022003', property_type: 'CASTLE' } },
      /property_type must be one of SFD/,
    );
  });

  it.each([
    ['missing', {}, /components is required/],
    ['with spaces', { components: 'property/value, property/school' }, /must not contain spaces/],
    ['unknown', { components: 'property/value,property/zip_nothing' }, /unknown endpoint "property\/zip_nothing"/],
    ['itself', { components: 'property/component_mget' }, /cannot be fetched through component_mget/],
    ['block level', { components: 'block/crime' }, /cannot be fetched through component_mget/],
    ['repeated', { components: 'property/value,property/value' }, /named twice/],
  ])('component_mget components %s', async (_name, query, expected) => {
    await rejected('/v2/property/component_mget', { query: { ...VALMONTE, ...query } }, expected);
  });

  it('takes components only in the query string, not in items', async () => {
    await rejected(
      '/v2/property/component_mget',
      { body: [{ ...VALMONTE, components: 'property/value' }], query: { components: 'property/value' } },
      /components goes in the query string/,
    );
  });

  it('treats empty values as absent: a CSV column left empty', async () => {
    const reply = await call(sandbox, '/v2/property/value', {
      body: [
        { ...VALMONTE, unit: '', meta: 'a' },
        { ...VALMONTE, unit: '4B', meta: 'b' },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.json[0].address_info.unit).toBeNull();
    expect(reply.json[1].address_info.unit).toBe('UNIT 4B');
  });

  // The spec shows no endpoint at these levels, so no request reaches them: this is the rule a POST
  // there would be held to, the same catalog check that rejects a short block_id above.
  it.each([
    ['blockgroup', 'blockgroup_id', 12],
    ['metrodiv', 'metrodiv', 5],
    ['msa', 'msa', 5],
    ['zip', 'zipcode', 5],
  ] as const)('holds %s items to %s of %i digits', (level, name, digits) => {
    const identifier = LEVEL_SPECS[level].identifiers.find((candidate) => candidate.name === name)!;
    expect(checkIdentifier(identifier, '1'.repeat(digits))).toBeUndefined();
    for (const wrong of ['1'.repeat(digits - 1), '1'.repeat(digits + 1), `${'1'.repeat(digits - 1)}x`]) {
      expect(checkIdentifier(identifier, wrong)).toBe(`${name} must be ${digits} digits, got "${wrong}"`);
    }
  });

  it('answers other methods with 405', async () => {
    const reply = await call(sandbox, '/v2/property/value', { method: 'PUT', body: [VALMONTE] });
    expect(reply.status).toBe(405);
  });
});
