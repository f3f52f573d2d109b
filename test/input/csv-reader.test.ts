import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { createPreparer } from '../../src/input/prepare.js';
import { InputError, PropdataError } from '../../src/errors/index.js';
import { readCsv } from '../../src/input/csv-reader.js';
import { bytes, FIXTURES, readAll } from './read-all.js';

const readText = (text: string | Buffer, chunkSize?: number) => readAll(readCsv(bytes(text, chunkSize)));
const fixture = (name: string) => readFileSync(`${FIXTURES}${name}`);

describe('readCsv', () => {
  it('strips the BOM and reads CRLF rows with quoted commas and newlines', async () => {
    const { columns, rows, error } = await readText(fixture('bom-crlf-quoted-newlines.csv'));
    expect(error).toBeUndefined();
    expect(columns).toEqual(['address', 'unit', 'zipcode']);
    expect(rows).toEqual([
      { row: 1, line: 2, columns: { address: '1 MAIN ST', unit: 'APT 1\r\nREAR', zipcode: '21204' } },
      { row: 2, line: 4, columns: { address: '2 OAK ST, REAR', unit: '', zipcode: '21204' } },
    ]);
  });

  it('reads CR-only line ends (old Mac exports)', async () => {
    const { rows } = await readText('a,b\r1,2\r3,4\r');
    expect(rows.map((row) => row.columns)).toEqual([
      { a: '1', b: '2' },
      { a: '3', b: '4' },
    ]);
  });

  it('reads a file whose line ends change midway (concatenated exports)', async () => {
    const { rows } = await readText('a,b\r\n1,2\r\n3,4\n5,6\r7,8\n');
    expect(rows.map((row) => row.columns.b)).toEqual(['2', '4', '6', '8']);
    expect(rows.every((row) => row.readError === undefined)).toBe(true);
  });

  it('skips blank lines without counting them as rows, but counts them as lines', async () => {
    const { rows } = await readText('a,b\n\n1,2\n   \n3,4\n\n');
    expect(rows.map((row) => [row.row, row.line])).toEqual([
      [1, 3],
      [2, 5],
    ]);
  });

  it('gives a row with the wrong number of fields a readError naming both counts', async () => {
    const { rows, error } = await readText(fixture('ragged-rows.csv'));
    expect(error).toBeUndefined();
    expect(rows).toHaveLength(4);
    expect(rows[0]!.readError).toBeUndefined();
    expect(rows[1]).toMatchObject({ row: 2, line: 3, columns: { address: '2 OAK ST', city: 'TOWSON', zipcode: '' } });
    expect(rows[1]!.readError).toMatch(/expected 3 fields as in the header, got 2; quote fields/);
    expect(rows[2]!.readError).toMatch(/expected 3 fields as in the header, got 4/);
    expect(rows[3]!.readError).toBeUndefined();
  });

  it('stops at an unclosed quote with the line where it opened, after yielding the rows before it', async () => {
    const { rows, error } = await readText(fixture('unclosed-quote.csv'));
    expect(rows.map((row) => row.columns.address)).toEqual(['1 MAIN ST']);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ code: 'E_CSV_UNCLOSED_QUOTE', line: 3, record: 2 });
    expect((error as Error).message).toMatch(/^line 3: a quoted field .* never closed \(row 2\)/);
  });

  it('keeps the rows before an unclosed quote when they arrive in many small chunks', async () => {
    const text = `a,b\n${Array.from({ length: 500 }, (_, i) => `${i},x`).join('\n')}\n"never closed,1\n`;
    const { rows, error } = await readText(text, 7);
    expect(rows).toHaveLength(500);
    expect(error).toMatchObject({ code: 'E_CSV_UNCLOSED_QUOTE', line: 502 });
  });

  it('refuses a header that names a column twice', async () => {
    const { error } = await readText(fixture('duplicate-header.csv'));
    expect(error).toMatchObject({ code: 'E_CSV_DUPLICATE_COLUMN', line: 1 });
    expect((error as Error).message).toContain('column "zip" twice (columns 2 and 3)');
  });

  it('names empty header cells by position so they round-trip', async () => {
    const { columns, rows } = await readText('address,,zipcode,\n1 MAIN ST,x,21204,\n');
    expect(columns).toEqual(['address', 'Unnamed: 1', 'zipcode', 'Unnamed: 3']);
    expect(rows[0]!.columns).toEqual({ address: '1 MAIN ST', 'Unnamed: 1': 'x', zipcode: '21204', 'Unnamed: 3': '' });
  });

  it('fails an empty input with a clear message, and reads a header-only input as zero rows', async () => {
    const empty = await readText(fixture('empty.csv'));
    expect(empty.error).toMatchObject({ code: 'E_INPUT_EMPTY', message: 'input is empty: expected a header row' });
    const headerOnly = await readText(fixture('header-only.csv'));
    expect(headerOnly).toEqual({ columns: ['address', 'zipcode'], rows: [] });
  });

  it('keeps bytes that are not UTF-8 as U+FFFD without refusing the row: only a column that is sent refuses it', async () => {
    const { rows, error } = await readText(fixture('latin1-bytes.csv'));
    expect(error).toBeUndefined();
    expect(rows.map((row) => row.readError)).toEqual([undefined, undefined, undefined]);
    expect(rows[1]!.columns).toEqual({ address: '12 CAF\uFFFD ST', city: 'MONTR\uFFFDAL', zipcode: '21204' });
    const prepare = createPreparer({ level: 'property', endpoints: [findEndpoint('property/value')!], fixedParams: {}, map: {} });
    expect(prepare(rows[1]!).invalid).toMatch(
      /^row 2: address contains bytes that are not valid UTF-8; choose the file's encoding with --encoding/,
    );
    expect(prepare({ ...rows[1]!, columns: { ...rows[1]!.columns, address: '12 CAFE ST', city: 'MONTREAL' } }).item).toMatchObject({
      address: '12 CAFE ST',
    });
  });

  it('decodes a multi-byte character split across chunks', async () => {
    const { rows } = await readText('city\nMontréal\n', 10);
    expect(rows[0]).toEqual({ row: 1, line: 2, columns: { city: 'Montréal' } });
  });

  it('reads a 1 MB field', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const { rows, error } = await readText(`address,note\n1 MAIN ST,"${big}"\n2 OAK ST,short\n`);
    expect(error).toBeUndefined();
    expect(rows[0]!.columns.note).toHaveLength(1024 * 1024);
    expect(rows[1]!.columns.note).toBe('short');
  });

  it('turns binary garbage into row errors or a PropdataError, never a crash', async () => {
    let seed = 7;
    const garbage = Buffer.from(Array.from({ length: 20_000 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff));
    const { rows, error } = await readText(garbage);
    if (error !== undefined) expect(error).toBeInstanceOf(PropdataError);
    expect(rows.every((row) => row.readError !== undefined || Object.keys(row.columns).length > 0)).toBe(true);
  });

  it('reads the messy district offices file: suites, 9-digit ZIPs, non-ASCII names', async () => {
    const { columns, rows, error } = await readText(fixture('district-offices.csv'));
    expect(error).toBeUndefined();
    expect(columns).toEqual(['office_id', 'address', 'unit', 'building', 'city', 'state', 'zipcode']);
    expect(rows).toHaveLength(300);
    expect(rows.filter((row) => row.readError)).toEqual([]);
  });

  it('keeps columns named __proto__, constructor and toString as plain columns', async () => {
    const { columns, rows } = await readText('__proto__,constructor,toString,zipcode\n1 MAIN ST,b,c,21204\n');
    expect(columns).toEqual(['__proto__', 'constructor', 'toString', 'zipcode']);
    const cells = rows[0]!.columns;
    expect(Object.keys(cells)).toEqual(columns);
    // Reading `toString` as a column, not as Object's method, is the point.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    expect([cells['__proto__'], cells['constructor'], cells['toString']]).toEqual(['1 MAIN ST', 'b', 'c']);
    expect(JSON.stringify(cells)).toBe('{"__proto__":"1 MAIN ST","constructor":"b","toString":"c","zipcode":"21204"}');
  });

  it('reads tab-separated input with the tab delimiter', async () => {
    const { rows } = await readAll(readCsv(bytes('address\tzipcode\n1 MAIN ST, REAR\t21204\n'), { delimiter: '\t' }));
    expect(rows[0]!.columns).toEqual({ address: '1 MAIN ST, REAR', zipcode: '21204' });
  });
});
