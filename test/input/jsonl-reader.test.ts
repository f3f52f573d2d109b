import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readJsonl, scanJsonlKeys } from '../../src/input/jsonl-reader.js';
import { bytes, FIXTURES, readAll } from './read-all.js';

describe('readJsonl', () => {
  it('numbers records without blank lines, tolerates CRLF, and turns bad lines into readErrors', async () => {
    const { columns, rows, error } = await readAll(readJsonl(bytes(readFileSync(`${FIXTURES}bad-line-and-blanks.jsonl`))));
    expect(error).toBeUndefined();
    expect(columns).toEqual(['address', 'zipcode']);
    expect(rows.map((row) => [row.row, row.line])).toEqual([[1, 1], [2, 3], [3, 4], [4, 6], [5, 7]]);
    expect(rows[1]!.columns).toEqual({ address: '2 OAK ST', zipcode: '21204', meta: 'b' });
    expect(rows[2]!.readError).toMatch(/^not a JSON object \(.+\); write one \{\.\.\.\} object per line$/);
    expect(rows[3]!.readError).toMatch(/^not a JSON object \(found an array\)/);
    expect(rows[4]).toEqual({ row: 5, line: 7, columns: { address: '3 ELM ST', zipcode: 21204 } });
  });

  it('strips a BOM from the first line', async () => {
    const { rows } = await readAll(readJsonl(bytes('\uFEFF{"a":1}\n')));
    expect(rows[0]!.readError).toBeUndefined();
  });

  it('marks a line with bytes that are not UTF-8 invalid', async () => {
    const line = Buffer.concat([Buffer.from('{"city":"MONTR'), Buffer.from([0xc9]), Buffer.from('AL"}\n{"city":"X"}\n')]);
    const { rows } = await readAll(readJsonl(bytes(line)));
    expect(rows[0]!.readError).toMatch(/not valid UTF-8/);
    expect(rows[1]!.readError).toBeUndefined();
  });

  it('reads an empty input as no columns and no rows', async () => {
    expect(await readAll(readJsonl(bytes('\n\n')))).toEqual({ columns: [], rows: [] });
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
