import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors/index.js';
import { MAX_RECORD_BYTES } from '../../src/input/record-size.js';
import { readJsonl, scanJsonlKeys } from '../../src/input/jsonl-reader.js';
import { bytes, FIXTURES, readAll } from './read-all.js';

describe('readJsonl', () => {
  it('numbers records without blank lines, tolerates CRLF, and turns bad lines into readErrors', async () => {
    const { columns, rows, error } = await readAll(readJsonl(bytes(readFileSync(`${FIXTURES}bad-line-and-blanks.jsonl`))));
    expect(error).toBeUndefined();
    expect(columns).toEqual(['address', 'zipcode']);
    expect(rows.map((row) => [row.row, row.line])).toEqual([
      [1, 1],
      [2, 3],
      [3, 4],
      [4, 6],
      [5, 7],
    ]);
    expect(rows[1]!.columns).toEqual({ address: '2 OAK ST', zipcode: '21204', meta: 'b' });
    expect(rows[2]!.readError).toMatch(/^not a JSON object \(.+\); write one \{\.\.\.\} object per line$/);
    expect(rows[3]!.readError).toMatch(/^not a JSON object \(found an array\)/);
    expect(rows[4]).toEqual({ row: 5, line: 7, columns: { address: '3 ELM ST', zipcode: 21204 } });
  });

  it('strips a BOM from the first line', async () => {
    const { rows } = await readAll(readJsonl(bytes('\uFEFF{"a":1}\n')));
    expect(rows[0]!.readError).toBeUndefined();
  });

  it('keeps bytes that are not UTF-8 as U+FFFD: the preparer refuses them only in a column it sends', async () => {
    const line = Buffer.concat([Buffer.from('{"city":"MONTR'), Buffer.from([0xc9]), Buffer.from('AL"}\n{"city":"X"}\n')]);
    const { rows } = await readAll(readJsonl(bytes(line)));
    expect(rows.map((row) => row.readError)).toEqual([undefined, undefined]);
    expect(rows[0]!.columns.city).toBe('MONTR\uFFFDAL');
  });

  it('fails an input without a record as an empty CSV fails, given columns or not', async () => {
    for (const text of ['', '\n\n', '\uFEFF  \r\n\t\n']) {
      const { error } = await readAll(readJsonl(bytes(text)));
      expect(error, JSON.stringify(text)).toBeInstanceOf(InputError);
      expect(error).toMatchObject({ code: 'E_INPUT_EMPTY', message: 'input is empty: expected one JSON object per line' });
    }
    const { error } = await readAll(readJsonl(bytes('\n'), { columns: Promise.resolve([]) }));
    expect(error).toMatchObject({ code: 'E_INPUT_EMPTY' });
  });

  it("stops at a line longer than the record cap with the CSV reader's message, after the rows before it", async () => {
    // One 1 MB buffer yielded again and again: the stream is over the cap without holding it.
    const mb = Buffer.alloc(1024 * 1024, 'x');
    const source = Readable.from(
      (function* () {
        yield Buffer.from('{"a":1}\n\n');
        for (let size = 0; size <= MAX_RECORD_BYTES; size += mb.length) yield mb;
        yield Buffer.from('\n{"a":2}\n');
      })(),
    );
    const { rows, error } = await readAll(readJsonl(source));
    expect(rows.map((row) => row.columns)).toEqual([{ a: 1 }]);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ code: 'E_JSONL_RECORD_TOO_LARGE', line: 3, record: 2 });
    expect((error as Error).message).toBe(
      'line 3: the record starting here is longer than 32 MB (row 2); this is usually a file without line breaks ' +
        '(JSON Lines has one object per line). Rows before it were processed.',
    );
  });

  it('keeps keys named __proto__ and constructor, and a key an object lacks reads as undefined', async () => {
    const { columns, rows } = await readAll(
      readJsonl(bytes('{"__proto__":"1 MAIN ST","constructor":"b"}\n{"zipcode":"21204"}\nnot json\n')),
    );
    expect(columns).toEqual(['__proto__', 'constructor']);
    expect(rows[0]!.columns['__proto__']).toBe('1 MAIN ST');
    expect(JSON.stringify(rows[0]!.columns)).toBe('{"__proto__":"1 MAIN ST","constructor":"b"}');
    // An absent `toString` column must not read as Object's method.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    expect(rows[0]!.columns['toString']).toBeUndefined();
    expect(rows[1]!.columns['constructor']).toBeUndefined();
    expect(rows[2]!.columns['constructor']).toBeUndefined(); // a line that is not an object
  });

  it('uses given columns instead of the first object', async () => {
    const source = readJsonl(bytes('{"a":1}\n{"b":2}\n'), { columns: Promise.resolve(['a', 'b']) });
    const { columns, rows } = await readAll(source);
    expect(columns).toEqual(['a', 'b']);
    expect(rows).toHaveLength(2);
  });
});

describe('scanJsonlKeys', () => {
  it('collects every key in first-seen order, skipping lines that are not objects', async () => {
    expect(await scanJsonlKeys(`${FIXTURES}bad-line-and-blanks.jsonl`)).toEqual(['address', 'zipcode', 'meta']);
  });
});
