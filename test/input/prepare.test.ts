import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findEndpoint, type Level } from '../../src/catalog/index.js';
import { UsageError } from '../../src/errors/index.js';
import { readCsv } from '../../src/input/csv-reader.js';
import { createPreparer, type PreparePlan } from '../../src/input/prepare.js';
import { bytes, FIXTURES, readAll } from './read-all.js';

const endpoints = (...names: string[]) => names.map((name) => findEndpoint(name)!);
const preparer = (level: Level, names: string[], extra: Partial<PreparePlan> = {}) =>
  createPreparer({ level, endpoints: endpoints(...names), fixedParams: {}, map: {}, ...extra });
const row = (columns: Record<string, unknown>, number = 12) => ({ row: number, columns });

describe('createPreparer', () => {
  const value = preparer('property', ['property/value']);

  it('builds the item from normalized identifiers with sorted keys and no empty values', () => {
    const prepared = value(
      row({ Street: ' 405  DYER AVE ', City: 'REISTERSTOWN', State: 'Maryland', Zip: '21136-1905', unit: '', use: 'RES' }),
    );
    expect(prepared).toEqual({
      row: 12,
      columns: { Street: ' 405  DYER AVE ', City: 'REISTERSTOWN', State: 'Maryland', Zip: '21136-1905', unit: '', use: 'RES' },
      item: { address: '405 DYER AVE', city: 'REISTERSTOWN', state: 'MD', zipcode: '21136' },
    });
    expect(Object.keys(prepared.item!)).toEqual(['address', 'city', 'state', 'zipcode']);
  });

  it('gives rows with the same filled columns the same key set, whatever the column order', () => {
    const a = value(row({ zipcode: '21204', address: '1 MAIN ST', meta: 'x' })).item!;
    const b = value(row({ meta: 'y', address: '2 OAK ST', zipcode: '21204' })).item!;
    expect(Object.keys(a)).toEqual(['address', 'meta', 'zipcode']);
    expect(Object.keys(b)).toEqual(Object.keys(a));
  });

  it('needs an address or a slug on property rows', () => {
    expect(value(row({ address: '  ', zipcode: '21204' })).invalid).toBe(
      'row 12: needs an address or a slug column value; add one or remove the row',
    );
    expect(value(row({ slug: '43-Valmonte-Plz-Palos-Verdes-Estates-CA-90274' })).item).toEqual({
      slug: '43-Valmonte-Plz-Palos-Verdes-Estates-CA-90274',
    });
  });

  it('says so when no column could ever feed the identifier', () => {
    expect(value(row({ street_name: 'MAIN', zip: '21204' })).invalid).toBe(
      'row 12: needs an address or a slug column value (no column is recognised as address or slug; ' +
        'columns: street_name, zip; rename one or use --map COLUMN=address); add one or remove the row',
    );
  });

  it('pads a ZIP only where a spreadsheet plainly stripped its zero, and reports each repair', () => {
    const repairs: string[] = [];
    const repairing = preparer('property', ['property/value'], { onRepair: (at: number, what: string) => repairs.push(`${at}: ${what}`) });
    expect(repairing(row({ address: '1 MAIN ST', zipcode: '2120', state: 'Massachusetts' })).item!.zipcode).toBe('02120');
    expect(repairing(row({ address: '1 MAIN ST', zipcode: '601', state: 'PR' })).item!.zipcode).toBe('00601');
    expect(repairing(row({ address: '1 MAIN ST', zipcode: '21401234', state: 'MA' })).item!.zipcode).toBe('02140');
    expect(repairs).toEqual(['12: zipcode 2120 → 02120', '12: zipcode 601 → 00601', '12: zipcode 2140 → 02140']);
    // Maryland's ZIPs start with 2: 2120 is not Boston's 02120.
    expect(repairing(row({ address: '1 MAIN ST', zipcode: '2120', state: 'MD' })).invalid).toMatch(/zipcode must be 5 digits, got "2120"/);
    expect(repairing(row({ address: '1 MAIN ST', zipcode: '2120' })).invalid).toMatch(/zipcode must be 5 digits, got "2120"/);
    expect(repairing(row({ address: '1 MAIN ST', zipcode: '123', state: 'MA' })).invalid).toMatch(/got "123"/);
    expect(repairs).toHaveLength(3);
  });

  it('pads a 14-digit block id only when its state code is then a real one', () => {
    const block = preparer('block', ['block/crime']);
    expect(block(row({ block_id: '60376703241005' })).item).toEqual({ block_id: '060376703241005' });
    expect(block(row({ block_id: '06037670324100' })).invalid).toMatch(/block_id must be 15 digits, got "06037670324100"/);
    expect(block(row({ block_id: '36037670324100' })).invalid).toMatch(/block_id must be 15 digits/);
  });

  it('checks digits of every digit identifier, with a hint for spreadsheet numbers', () => {
    const block = preparer('block', ['block/crime']);
    expect(block(row({ block_id: '550790001011000' })).item).toEqual({ block_id: '550790001011000' });
    expect(block(row({ block_id: '55079000101' })).invalid).toBe(
      'row 12: block_id must be 15 digits, got "55079000101"; correct the row or remove it',
    );
    expect(block(row({ block_id: '5.50790001011E+14' })).invalid).toMatch(/must be 15 digits.*spreadsheet turned it into a number/);
    expect(block(row({ population: '77' })).invalid).toMatch(/^row 12: needs a block_id value \(no column is recognised as block_id/);
    expect(value(row({ address: '1 MAIN ST', zipcode: '2120', state: 'MA' })).item!.zipcode).toBe('02120');
    expect(value(row({ address: '1 MAIN ST', zipcode: '21' })).invalid).toBe(
      'row 12: zipcode must be 5 digits, got "21"; correct the row or remove it',
    );
  });

  it('rejects states it cannot turn into a code', () => {
    expect(value(row({ address: '1 MAIN ST', state: 'Ontario' })).invalid).toMatch(/state must be a 2-letter abbreviation/);
  });

  it('reads parameter columns, checks them, and sends numbers as numbers', () => {
    const within = preparer('property', ['property/value_within_block']);
    expect(within(row({ slug: 's', client_value: ' 1000000 ', client_value_sqft: '' })).item).toEqual({ client_value: 1000000, slug: 's' });
    expect(within(row({ slug: 's', client_value: 'lots' })).invalid).toBe(
      'row 12: client_value must be a number, got "lots"; correct the row or remove it',
    );
    const adjusted = preparer('property', ['property/value_details_adjusted']);
    expect(adjusted(row({ address: 'a', add_baths: '1.25' })).invalid).toMatch(/add_baths must be a whole or half number/);
    expect(adjusted(row({ address: 'a', add_pools: '2' })).invalid).toMatch(/add_pools accepts only 1/);
    const hpi = preparer('property', ['property/value_hpi_adjusted']);
    expect(hpi(row({ address: 'a', adjust_to_date: '2024-03-15' })).invalid).toMatch(/first day of a month/);
    const hcri = preparer('block', ['block/hcri']);
    expect(hcri(row({ block_id: '550790001011000', property_type: 'XX' })).invalid).toMatch(/property_type must be one of SFD/);
  });

  it('enforces "at least one of" rules', () => {
    const adjusted = preparer('property', ['property/value_details_adjusted']);
    expect(adjusted(row({ address: '1 MAIN ST', add_beds: '' })).invalid).toBe(
      'row 12: property/value_details_adjusted needs at least one of add_beds, add_baths, add_sqft, add_pools; add one or remove the row',
    );
    expect(adjusted(row({ address: '1 MAIN ST', add_beds: '1' })).item).toEqual({ add_beds: 1, address: '1 MAIN ST' });
  });

  it('applies fixed parameters to every row, and a non-empty column value wins', () => {
    const adjusted = preparer('property', ['property/value_details_adjusted'], { fixedParams: { add_beds: '2', source: 'crm' } });
    expect(adjusted(row({ address: 'a', add_beds: '' })).item).toEqual({ add_beds: 2, address: 'a', source: 'crm' });
    expect(adjusted(row({ address: 'a', add_beds: '3' })).item).toEqual({ add_beds: 3, address: 'a', source: 'crm' });
    expect(adjusted(row({ address: 'a' })).item).toEqual({ add_beds: 2, address: 'a', source: 'crm' });
  });

  it('refuses a bad fixed parameter once, up front', () => {
    expect(() => preparer('property', ['property/value_details_adjusted'], { fixedParams: { add_beds: 'two' } })).toThrow(UsageError);
  });

  it('takes the parameters of every mget component', () => {
    const mget = preparer('property', ['property/value_within_block', 'property/value_hpi_adjusted']);
    expect(mget(row({ address: 'a', client_value: '5', client_date: '2020-01-01' })).item).toEqual({
      address: 'a',
      client_date: '2020-01-01',
      client_value: 5,
    });
  });

  it('sends the meta column as text and honours --meta-column', () => {
    expect(value(row({ address: 'a', meta: 7 })).item).toEqual({ address: 'a', meta: '7' });
    const chosen = preparer('property', ['property/value'], { metaColumn: 'tax_account' });
    expect(chosen(row({ address: 'a', tax_account: '0402058880', meta: 'x' })).item).toEqual({ address: 'a', meta: '0402058880' });
  });

  it('follows --map', () => {
    const mapped = preparer('property', ['property/value'], { map: { location: 'address', address: '' } });
    expect(mapped(row({ address: 'ignored', location: '1 MAIN ST' })).item).toEqual({ address: '1 MAIN ST' });
  });

  it('refuses JSON objects, arrays and booleans as identifiers or parameters, and keeps numbers', () => {
    expect(value(row({ address: { nested: 'obj' }, zipcode: '21204' })).invalid).toBe(
      'row 12: address must be text or a number, not an object; correct the row or remove it',
    );
    expect(value(row({ address: ['x'] })).invalid).toBe(
      'row 12: address must be text or a number, not an array; correct the row or remove it',
    );
    expect(value(row({ address: '1 MAIN ST', zipcode: true })).invalid).toBe(
      'row 12: zipcode must be text or a number, not a boolean (true); correct the row or remove it',
    );
    const within = preparer('property', ['property/value_within_block'], { fixedParams: { client_value: '5' } });
    expect(within(row({ slug: 's', client_value: { usd: 5 } })).invalid).toMatch(
      /^row 12: client_value must be text or a number, not an object;/,
    );
    expect(value(row({ address: '1 MAIN ST', zipcode: 21204 })).item).toEqual({ address: '1 MAIN ST', zipcode: '21204' });
    expect(value(row({ address: '1 MAIN ST', meta: { id: 7 } })).item).toEqual({ address: '1 MAIN ST', meta: '{"id":7}' });
  });

  it('reads and maps a column named __proto__ like any other', async () => {
    const { rows } = await readAll(readCsv(bytes('__proto__,zipcode\n1 MAIN ST,21204\n')));
    const mapped = preparer('property', ['property/value'], { map: { ['__proto__']: 'address' } });
    expect(mapped(rows[0]!)).toMatchObject({ item: { address: '1 MAIN ST', zipcode: '21204' } });
  });

  it('lists every problem of a row in one message', () => {
    expect(value(row({ address: '', zipcode: '1', state: 'XX' })).invalid).toBe(
      'row 12: state must be a 2-letter abbreviation or a full US state name, got "XX"; zipcode must be 5 digits, got "1"; ' +
        'needs an address or a slug column value; correct the row or remove it',
    );
  });

  it('turns a read error into an invalid item with the row and line', () => {
    expect(value({ row: 4, line: 6, columns: {}, readError: 'not a JSON object (found null); write one {...} object per line' })).toEqual({
      row: 4,
      columns: {},
      invalid: 'row 4 (line 6): not a JSON object (found null); write one {...} object per line',
    });
  });

  it('copes with JSONL rows whose keys change from row to row', () => {
    const rows = [
      { address: 'a', zipcode: 21204 },
      { zip: '2140', address: 'b', unit: '2', state: 'MA' },
      { address: 'c', zipcode: 21204 },
    ];
    expect(rows.map((columns, i) => value(row(columns, i + 1)).item)).toEqual([
      { address: 'a', zipcode: '21204' },
      { address: 'b', unit: '2', state: 'MA', zipcode: '02140' },
      { address: 'c', zipcode: '21204' },
    ]);
  });

  it('sends free-text addresses as one collapsed address each, quoted commas included', async () => {
    const text = Buffer.concat([Buffer.from('address\r\n'), readFileSync(`${FIXTURES}free-text-addresses.txt`)]);
    const { rows, error } = await readAll(readCsv(bytes(text)));
    expect(error).toBeUndefined();
    const items = rows.map((each) => value(each));
    expect(items).toHaveLength(300);
    expect(items.filter((each) => each.invalid)).toEqual([]);
    expect(items[1]!.item).toEqual({ address: '100 alabama avenue nw ft payne al 35967' });
    expect(items[2]!.item!.address).toMatch(/^100 diamond street san francisco, ca, 941142414/);
  });
});
