import { describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { schemaProblems } from '../helpers/schema-check.js';

const value = findEndpoint('property/value')!.result!;
const census = findEndpoint('property/census')!.result!;
const listing = findEndpoint('property/listing_status')!.result!;

describe('schema-check, the validator the contract tests rely on', () => {
  it('accepts a conforming value', () => {
    expect(schemaProblems(value, { value: { price_mean: 100, price_upr: 110, price_lwr: 90, fsd: 0.1 } })).toEqual([]);
  });

  it('reports wrong types, missing and extra members, bounds', () => {
    const problems = schemaProblems(value, { value: { price_mean: 1.5, price_upr: '110', fsd: 2, extra: 1 } });
    expect(problems).toEqual(
      expect.arrayContaining([
        'result.value.extra: not in the schema',
        'result.value.price_mean: expected an integer, got 1.5',
        'result.value.price_upr: expected a number, got "110"',
        'result.value.price_lwr: missing',
        'result.value.fsd: 2 is above 1',
      ]),
    );
  });

  it('reports digit counts, nullability, enumerations, dates and true-or-null', () => {
    const problems = schemaProblems(census, {
      block_group: '123',
      block: null,
      county_name: 'X',
      fips: '06037',
      msa_name: null,
      msa: null,
      tract: '12345678901',
      tribal_land: false,
    });
    expect(problems).toEqual(['result.block_group: "123" is not 12 digits', 'result.block: is null but not nullable']);
    const listingProblems = schemaProblems(listing, {
      listing_date: '2024-02-30',
      listing_price: 1,
      has_price_considerations: false,
      listing_status_date: '2024-01-01',
      listing_status: 'Gone',
    });
    expect(listingProblems).toEqual([
      'result.listing_date: "2024-02-30" is not an ISO date',
      'result.has_price_considerations: may only be true or null',
      'result.listing_status: "Gone" is not one of Coming Soon | Active | Closed | Sold | Pending | Contingent | Cancelled | Expired | Withdrawn | Deleted | Leased | Not Listed',
    ]);
  });
});
