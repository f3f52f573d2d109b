import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../src/input/csv-reader.js';
import { bytes, readAll } from './read-all.js';

/** The records csv-parse alone makes of the whole text, blank ones left out, as the reader's rows hold them. */
function csvParseRows(text: string, delimiter: string): string[][] {
  const records: string[][] = parse(text, {
    bom: true,
    delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
  });
  return records.filter((fields) => !fields.every((field) => field.trim() === '')).slice(1);
}

async function readerRows(source: Readable, delimiter: string): Promise<string[][]> {
  const { columns, rows, error } = await readAll(readCsv(source, { delimiter }));
  expect(error).toBeUndefined();
  // Fields beyond the header's are not kept in a row: compare rows no wider than the header.
  return rows.map((row) => columns!.map((name) => String(row.columns[name])));
}

const TEXTS = [
  // Plain throughout: split without csv-parse.
  'a,b,c\n1 MAIN ST,TOWSON,21204\n\n2 OAK ST,,21204\n,,\n3 ÉLM ST 😀,X,21093',
  // Plain, then a quoted field with a comma and a line break: csv-parse reads from that record on.
  'a,b,c\n1 MAIN ST,TOWSON,21204\n"2 OAK ST, REAR","x\ny",21204\n3 ELM ST,Y,21093\n',
  // Quoted fields closed on their line (a comma, doubled quotes, an empty one), then text after a closing quote.
  'a,b,c\n"1 MAIN ST, APT 2",TOWSON,21204\n"say ""hi""","",x\n"4" OAK,y,z\n5,6,7\n',
  // A quote inside an unquoted field, and CRLF line ends.
  'a,b,c\r\n12" PIPE,b,c\r\n1,2,3\r\n',
  // A byte order mark.
  '\uFEFFa,b,c\n1,2,3\n4,5,6\n',
  // A CR alone after plain lines.
  'a,b,c\n1,2,3\n4,5,6\r7,8,9\n',
  // CRLF line ends (a Windows export), a blank line, and a last line ending in a CR alone.
  'a,b,c\r\n1 MAIN ST,TOWSON,21204\r\n\r\n2 OAK ST,,21204\r\n3,4,5\r',
];

describe('a CSV read without csv-parse while it is plain', () => {
  it('gives the rows csv-parse gives, wherever the chunks break (mid-line, mid-character, mid-line-end)', async () => {
    for (const text of TEXTS) {
      const expected = csvParseRows(text, ',').map((fields) => fields.slice(0, 3).concat(Array(Math.max(0, 3 - fields.length)).fill('')));
      for (const size of [1, 2, 3, 5, 7, 64 * 1024]) expect(await readerRows(bytes(text, size), ',')).toEqual(expected);
      // Decoded text (a Windows-1252 file) comes as strings.
      expect(await readerRows(Readable.from([text.slice(0, 9), text.slice(9)]), ',')).toEqual(expected);
    }
  });

  it('counts lines across the change to csv-parse, and reads another delimiter', async () => {
    const { rows } = await readAll(readCsv(bytes('a;b\n1;2\n\n"3\n3";4\n5;6\n', 4), { delimiter: ';' }));
    expect(rows.map((row) => [row.row, row.line, row.columns.a])).toEqual([
      [1, 2, '1'],
      [2, 4, '3\n3'],
      [3, 6, '5'],
    ]);
  });
});
