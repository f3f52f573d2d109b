import { describe, expect, it } from 'vitest';
import { ALL_IDENTIFIERS, findEndpoint, type Level, type Param } from '../../src/catalog/index.js';
import { UsageError } from '../../src/errors/index.js';
import { createColumnResolver, IDENTIFIER_ALIASES, type ColumnSettings } from '../../src/input/columns.js';

const params = (endpoint: string) => new Map<string, Param>(findEndpoint(endpoint)!.params.map((param) => [param.name, param]));
const settings = (level: Level, extra: Partial<ColumnSettings> = {}): ColumnSettings => ({ level, params: new Map(), map: {}, ...extra });
const assigned = (columns: string[], options: ColumnSettings) =>
  Object.fromEntries(createColumnResolver(options)(columns).assigned.map(({ column, target }) => [column, target.name]));

describe('column recognition', () => {
  it('keys its aliases by catalog identifier names', () => {
    for (const name of Object.keys(IDENTIFIER_ALIASES)) expect(ALL_IDENTIFIERS).toContain(name);
  });

  it('recognises identifiers by name and by common aliases, whatever the case and separators', () => {
    const columns = ['Street Address', 'Apt', 'Town', 'ST', 'Zip Code', 'use'];
    expect(assigned(columns, settings('property'))).toEqual({
      'Street Address': 'address',
      Apt: 'unit',
      Town: 'city',
      ST: 'state',
      'Zip Code': 'zipcode',
    });
    expect(assigned(['BlockID'], settings('block'))).toEqual({ BlockID: 'block_id' });
    expect(assigned(['block_group_id'], settings('blockgroup'))).toEqual({ block_group_id: 'blockgroup_id' });
    expect(assigned(['CBSA'], settings('msa'))).toEqual({ CBSA: 'msa' });
  });

  it('applies aliases only where the level has the identifier', () => {
    expect(assigned(['address', 'zip', 'state'], settings('block'))).toEqual({});
  });

  it('lets the exact name win over an alias, and the leftmost column win a tie', () => {
    const plan = createColumnResolver(settings('property'))(['zip', 'zipcode', 'postal_code', 'zipcode_plus4']);
    expect(plan.assigned.map(({ column }) => column)).toEqual(['zipcode']);
    expect(plan.passthrough).toEqual([
      { column: 'zip', note: '"zipcode" already feeds zipcode' },
      { column: 'postal_code', note: '"zipcode" already feeds zipcode' },
      { column: 'zipcode_plus4' },
    ]);
    expect(assigned(['zip', 'postcode'], settings('property'))).toEqual({ zip: 'zipcode' });
  });

  it('follows --map over names and aliases, and ignores a column mapped to nothing', () => {
    const options = settings('property', { map: { 'Site Addr': 'address', address: '', zip_full: 'zipcode' } });
    expect(assigned(['address', 'Site Addr', 'zip', 'zip_full'], options)).toEqual({ 'Site Addr': 'address', zip_full: 'zipcode' });
  });

  it('refuses --map to something the level does not carry, listing what it does', () => {
    expect(() => createColumnResolver(settings('block', { map: { zip: 'zipcode' } }))).toThrow(UsageError);
    expect(() => createColumnResolver(settings('block', { map: { zip: 'zipcode' } }))).toThrow(/use one of block_id, meta/);
  });

  it('recognises parameter columns of the endpoint, and meta by name or --meta-column', () => {
    const options = settings('property', { params: params('property/value_within_block') });
    expect(assigned(['slug', 'client_value', 'Meta', 'add_beds'], options)).toEqual({
      slug: 'slug',
      client_value: 'client_value',
      Meta: 'meta',
    });
    const chosen = settings('property', { metaColumn: 'tax_account' });
    expect(assigned(['meta', 'tax_account'], chosen)).toEqual({ tax_account: 'meta' });
  });
});
