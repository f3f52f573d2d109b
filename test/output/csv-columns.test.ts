import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { csvColumns } from '../../src/output/csv-columns.js';
import { cellText, csvLineRenderer } from '../../src/output/csv-line.js';
import type { OutputRecord } from '../../src/model/record.js';

const parseCsv = (text: string): string[][] => parse(text);
const headers = (shape: Parameters<typeof csvColumns>[0]) => csvColumns(shape).map((column) => column.header);

describe('CSV columns', () => {
  it('start with the input columns verbatim, then _row, _status, _error, the info member and each section', () => {
    const header = headers({
      inputColumns: ['Street', 'ZIP', 'odd, name'],
      level: 'property',
      sections: ['property/value'],
      withMeta: false,
    });
    expect(header.slice(0, 6)).toEqual(['Street', 'ZIP', 'odd, name', '_row', '_status', '_error']);
    expect(header).toContain('address_info.address_full');
    expect(header).toContain('address_info.status.match');
    expect(header.slice(-5)).toEqual([
      'property/value.api_code',
      'property/value.value.price_mean',
      'property/value.value.price_upr',
      'property/value.value.price_lwr',
      'property/value.value.fsd',
    ]);
  });

  it('give block endpoints block_info and mget components one group each, in the order named', () => {
    const block = headers({ inputColumns: ['block_id'], level: 'block', sections: ['block/hcri'], withMeta: false });
    expect(block).toContain('block_info.block_id');
    expect(block).not.toContain('address_info.slug');
    const mget = headers({ inputColumns: [], level: 'property', sections: ['property/school', 'property/block_crime'], withMeta: true });
    expect(mget).toContain('_meta');
    expect(mget.indexOf('property/school.api_code')).toBeLessThan(mget.indexOf('property/block_crime.api_code'));
    expect(mget).toContain('property/block_crime.violent.incidents');
    // Lists are one JSON cell: the header cannot depend on how many schools an answer holds.
    expect(mget).toContain('property/school.school.elementary');
  });

  it('put a result that is a list, or a path the catalog does not know, in one .result cell', () => {
    expect(headers({ inputColumns: [], level: 'property', sections: ['property/sales_history'], withMeta: false }).slice(-2)).toEqual([
      'property/sales_history.api_code',
      'property/sales_history.result',
    ]);
    expect(headers({ inputColumns: [], level: 'state', sections: ['state/details'], withMeta: false })).toEqual([
      '_row',
      '_status',
      '_error',
      'state/details.api_code',
      'state/details.result',
    ]);
  });

  it('write null and absent as empty, booleans as true/false, lists and objects as JSON text', () => {
    expect([null, undefined, true, false, 0, 12.5, 'x'].map(cellText)).toEqual(['', '', 'true', 'false', '0', '12.5', 'x']);
    expect(cellText([{ a: 1 }])).toBe('[{"a":1}]');
    const record: OutputRecord = {
      row: 7,
      status: 'ok',
      input: { address: '1 Main St' },
      chunk: {
        address_info: { unit: null, status: { match: true, details: ['ok'] } },
        'property/sales_history': { api_code: 0, result: [{ amount: 1 }] },
      },
    };
    const columns = csvColumns({ inputColumns: ['address'], level: 'property', sections: ['property/sales_history'], withMeta: false });
    const [line] = parseCsv(csvLineRenderer(columns, false)(record));
    const cells = Object.fromEntries(columns.map((column, i) => [column.header, line![i]]));
    expect(cells).toMatchObject({
      address: '1 Main St',
      _row: '7',
      _status: 'ok',
      _error: '',
      'address_info.unit': '',
      'address_info.status.match': 'true',
      'address_info.status.details': '["ok"]',
      'property/sales_history.result': '[{"amount":1}]',
    });
  });

  it('quote a cell only when it holds a comma, a quote or a line break, doubling its quotes', () => {
    const columns = csvColumns({
      inputColumns: ['a', 'b', 'c', 'd', 'e', 'f'],
      level: 'property',
      sections: ['property/value'],
      withMeta: false,
    });
    const line = csvLineRenderer(
      columns,
      false,
    )({
      row: 4,
      status: 'ok',
      input: { a: '1 Main St, Apt 2', b: '12" pipe', c: 'two\nlines', d: '', e: 'plain', f: 'old\rMac' },
      chunk: { address_info: { city: 'Towson', status: { requested_item: { address: '1 Main St' }, changes: [] } } },
    });
    expect(line.startsWith('"1 Main St, Apt 2","12"" pipe","two\nlines",,plain,"old\rMac",4,ok,,')).toBe(true);
    expect(line).toContain(',Towson,');
    expect(line).toContain(',"{""address"":""1 Main St""}",,[],');
    expect(line.endsWith('\n')).toBe(true);
  });

  it('never carry a value over from the record rendered before', () => {
    const columns = csvColumns({ inputColumns: ['address'], level: 'property', sections: ['property/value'], withMeta: false });
    const render = csvLineRenderer(columns, false);
    const cellsOf = (record: OutputRecord) => {
      const [line] = parseCsv(render(record));
      return Object.fromEntries(columns.map((column, i) => [column.header, line![i]]));
    };
    const answered: OutputRecord = {
      row: 1,
      status: 'ok',
      input: { address: '1 Main St' },
      chunk: {
        address_info: { city: 'Towson', status: { match: true, details: ['ok'] } },
        'property/value': { api_code: 0, result: { value: { price_mean: 100 } } },
      },
    };
    expect(cellsOf(answered)).toMatchObject({
      'address_info.city': 'Towson',
      'address_info.status.match': 'true',
      'property/value.value.price_mean': '100',
    });
    const partial = cellsOf({ row: 2, status: 'no_content', input: { address: '2 Main St' }, chunk: { address_info: { city: 'Essex' } } });
    expect(partial).toMatchObject({
      'address_info.city': 'Essex',
      'address_info.status.match': '',
      'property/value.api_code': '',
      'property/value.value.price_mean': '',
    });
    const failed = cellsOf({ row: 3, status: 'error', error: 'HTTP 500', input: { address: '3 Main St' } });
    expect(Object.entries(failed).filter(([header, cell]) => header.includes('.') && cell !== '')).toEqual([]);
  });

  it('write a longitude sent as lon (the spec field table) in the address_info.lng column', () => {
    const columns = csvColumns({ inputColumns: [], level: 'property', sections: ['property/geocode'], withMeta: false });
    const headers = columns.map((column) => column.header);
    expect(headers).toContain('address_info.lng');
    expect(headers).not.toContain('address_info.lon');
    const render = csvLineRenderer(columns, false);
    const cellsOf = (addressInfo: Record<string, unknown>) => {
      const text = render({ row: 1, status: 'ok', input: {}, chunk: { address_info: addressInfo } });
      const [line] = parseCsv(text);
      return Object.fromEntries(columns.map((column, i) => [column.header, line![i]]));
    };
    expect(cellsOf({ lat: 39.4, lon: -76.6 })).toMatchObject({ 'address_info.lat': '39.4', 'address_info.lng': '-76.6' });
    expect(cellsOf({ lat: 39.4, lng: -76.5, lon: -76.6 })).toMatchObject({ 'address_info.lng': '-76.5' });
    expect(cellsOf({ lat: 39.4 })).toMatchObject({ 'address_info.lng': '' });
  });

  it('rename an input column an output column also names, never writing a header twice', () => {
    const geocoded = csvColumns({
      inputColumns: ['address', 'zipcode'],
      level: 'property',
      sections: ['property/geocode'],
      withMeta: false,
    });
    const chained = csvColumns({
      inputColumns: geocoded.map((column) => column.header),
      level: 'property',
      sections: ['property/value'],
      withMeta: false,
    });
    const header = chained.map((column) => column.header);
    expect(new Set(header).size).toBe(header.length);
    expect(header.slice(0, 5)).toEqual(['address', 'zipcode', 'input._row', 'input._status', 'input._error']);
    expect(header).toContain('input.address_info.lat');
    expect(header).toContain('address_info.lat');
    expect(chained[2]!.source).toEqual({ from: 'input', name: '_row' });
    const third = headers({ inputColumns: header, level: 'property', sections: ['property/value'], withMeta: false });
    expect(new Set(third).size).toBe(third.length);
    expect(third.slice(0, 4)).toEqual(['address', 'zipcode', 'input._row', 'input._status']);
    expect(third).toContain('input.input._row');
    // Without a collision the header is as before.
    expect(
      headers({ inputColumns: ['_status_note', 'meta'], level: 'property', sections: ['property/value'], withMeta: true }).slice(0, 2),
    ).toEqual(['_status_note', 'meta']);
  });

  it('write every list and object as its JSON text, quoted as csv-stringify quotes it, flat ones and others alike', () => {
    const values: unknown[] = [
      [],
      {},
      [1],
      [1, 2],
      ['resolved to a canonical address'],
      ['a,b', 'c"d'],
      [true, null],
      { address: '1 Main St', zipcode: '21204', n: 1.5 },
      { 'a"b': 1 },
      { a: 'x\ny' },
      { a: [1] },
      { '1': 'z', b: 'y', '0': 'x' },
      ['😀'],
      ['a\\b', '\u007f'],
      JSON.parse('{"__proto__":"p","k":"v"}'),
    ];
    const columns = [{ header: 'x', source: { from: 'chunk', path: ['x'] } }] as unknown as Parameters<typeof csvLineRenderer>[0];
    const render = csvLineRenderer(columns, false);
    for (const x of values) {
      const line = render({ row: 1, status: 'ok', input: {}, chunk: { x } });
      const json = JSON.stringify(x);
      expect(line).toBe(/[",\r\n]/.test(json) ? `"${json.replaceAll('"', '""')}"\n` : `${json}\n`);
      expect(parseCsv(line)).toEqual([[json]]);
    }
  });
});
