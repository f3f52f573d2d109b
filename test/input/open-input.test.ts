import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/errors/index.js';
import { openInput } from '../../src/input/open-input.js';
import { estimatedRows } from '../../src/input/read-progress.js';
import { createPreparer } from '../../src/input/prepare.js';
import { findEndpoint } from '../../src/catalog/index.js';
import { bytes, FIXTURES, readAll } from './read-all.js';

const dir = mkdtempSync(join(tmpdir(), 'propdata-input-'));
function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
const noStdin = Readable.from([]);

describe('openInput', () => {
  it('reports a missing file as a usage error naming the path', async () => {
    const opening = openInput({ path: join(dir, 'nope.csv'), stdin: noStdin });
    await expect(opening).rejects.toBeInstanceOf(UsageError);
    await expect(opening).rejects.toMatchObject({ code: 'E_INPUT_NOT_FOUND', message: `input file not found: ${join(dir, 'nope.csv')}` });
  });

  it('takes the format from --input-format, then the extension, then the first byte', async () => {
    const jsonlNamedCsv = file('rows.csv', '{"a":1}\n');
    expect((await openInput({ path: jsonlNamedCsv, format: 'jsonl', stdin: noStdin })).format).toBe('jsonl');
    expect((await openInput({ path: jsonlNamedCsv, stdin: noStdin })).format).toBe('csv');
    expect((await openInput({ path: file('rows.ndjson', '{"a":1}\n'), stdin: noStdin })).format).toBe('jsonl');
    expect((await openInput({ path: file('rows.txt', '\n  {"a":1}\n'), stdin: noStdin })).format).toBe('jsonl');
    expect((await openInput({ path: file('rows', 'a,b\n1,2\n'), stdin: noStdin })).format).toBe('csv');
  });

  it('sniffs stdin and keeps the bytes it looked at', async () => {
    const csv = await openInput({ path: '-', stdin: bytes('address,zipcode\n1 MAIN ST,21204\n', 3) });
    expect(csv.format).toBe('csv');
    expect((await readAll(csv)).rows[0]!.columns).toEqual({ address: '1 MAIN ST', zipcode: '21204' });
    const jsonl = await openInput({ path: '-', stdin: bytes('\n{"a":1,"b":2}\n{"a":3,"c":4}\n') });
    expect(jsonl.format).toBe('jsonl');
    // From stdin only the first object is known before output starts.
    expect(await readAll(jsonl)).toMatchObject({ columns: ['a', 'b'], rows: [{ row: 1 }, { row: 2 }] });
  });

  it('gives a JSONL file the union of all keys, in first-seen order', async () => {
    const input = await openInput({ path: file('keys.jsonl', '{"a":1,"b":2}\n{"c":3,"a":4}\n'), stdin: noStdin });
    expect(await input.columns).toEqual(['a', 'b', 'c']);
  });

  it('reads TSV files with the tab delimiter', async () => {
    const input = await openInput({ path: file('rows.tsv', 'address\tzipcode\n1 MAIN ST, REAR\t21204\n'), stdin: noStdin });
    expect((await readAll(input)).rows[0]!.columns).toEqual({ address: '1 MAIN ST, REAR', zipcode: '21204' });
  });

  it('refuses binary and JSON-array inputs, and UTF-16 JSON Lines, with a PropdataError', async () => {
    const gzipLike = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x61]);
    await expect(openInput({ path: file('rows.csv.gz', gzipLike), stdin: noStdin })).rejects.toMatchObject({ code: 'E_INPUT_BINARY' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":1}\n', 'utf16le')]);
    await expect(openInput({ path: file('rows.jsonl', utf16), stdin: noStdin })).rejects.toMatchObject({
      code: 'E_INPUT_UTF16',
      message: expect.stringMatching(/JSON Lines input must be UTF-8, and this is utf-16le/) as unknown,
    });
    const array = openInput({ path: file('rows.json', '[{"a":1}]'), stdin: noStdin });
    await expect(array).rejects.toBeInstanceOf(InputError);
    await expect(array).rejects.toMatchObject({ code: 'E_INPUT_JSON_ARRAY' });
  });

  it('reads UTF-16 CSV by its byte order mark, from a file or a pipe, and says nothing of it', async () => {
    const text = 'address\tcity\n1 Main St\tMontréal\n';
    for (const bytes of [
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]),
    ]) {
      for (const input of [
        await openInput({ path: file('excel.txt', bytes), stdin: noStdin }),
        await openInput({ path: '-', stdin: Readable.from([bytes]) }),
      ]) {
        expect(input.decodedAs).toBeUndefined();
        expect((await readAll(input)).rows.map((row) => ({ ...row.columns }))).toEqual([{ address: '1 Main St', city: 'Montréal' }]);
      }
    }
  });

  it('reads a file that is not UTF-8 as Windows-1252, past its first chunk too; a pipe by its start', async () => {
    const filler = Array.from({ length: 20_000 }, (_, i) => `${i} MAIN ST,TOWSON`).join('\n'); // past the first 256 KiB chunk
    const bytes = Buffer.concat([
      Buffer.from(`address,city\n${filler}\n`),
      Buffer.from([0x31, 0x20, 0x43, 0x41, 0x46, 0xc9, 0x2c, 0x80, 0x0a]),
    ]);
    const input = await openInput({ path: file('late.csv', bytes), stdin: noStdin });
    expect(input.decodedAs).toBe('windows-1252');
    expect((await readAll(input)).rows.at(-1)!.columns).toEqual({ address: '1 CAFÉ', city: '€' });
    const early = Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0xc9, 0x2c, 0x78, 0x0a]);
    const piped = await openInput({ path: '-', stdin: Readable.from([early]) });
    expect(piped.decodedAs).toBe('windows-1252');
    expect((await readAll(piped)).rows[0]!.columns).toEqual({ a: 'É', b: 'x' });
  });

  it('makes a row with a NUL byte past the first chunk invalid, in CSV and JSONL, and reads on', async () => {
    const filler = Array.from({ length: 20_000 }, (_, i) => i); // over 256 KiB: past the chunk checkText sees
    const csv = file(
      'nul.csv',
      `address,zipcode\n${filler.map((i) => `${i} MAIN ST,21204`).join('\n')}\n9 OAK\0 ST,21204\n1 ELM ST,21204\n`,
    );
    const jsonl = file(
      'nul.jsonl',
      `${filler.map((i) => JSON.stringify({ address: `${i} MAIN ST` })).join('\n')}\n{"address":"9 OAK\0 ST"}\n` +
        '{"address":"9 OAK\\u0000 ST"}\n{"address":"1 ELM ST","note":"\\\\u0000 is text here"}\n',
    );
    const prepare = createPreparer({ level: 'property', endpoints: [findEndpoint('property/value')!], fixedParams: {}, map: {} });
    for (const path of [csv, jsonl]) {
      const { rows, error } = await readAll(await openInput({ path, stdin: noStdin }));
      expect(error).toBeUndefined();
      const invalid = rows.map(prepare).filter((each) => each.invalid);
      const nulRows = path === csv ? [20_001] : [20_001, 20_002];
      expect(
        invalid.map((each) => each.row),
        path,
      ).toEqual(nulRows);
      expect(invalid[0]!.invalid).toMatch(
        /^row 20001 \(line 2000[12]\): contains a NUL byte, which text never holds .* remove the byte or the row/,
      );
      expect(rows.at(-1)!.readError).toBeUndefined();
    }
  });

  it('fails an empty CSV file from columns, not with a crash', async () => {
    const input = await openInput({ path: `${FIXTURES}empty.csv`, stdin: noStdin });
    await expect(input.columns).rejects.toMatchObject({ code: 'E_INPUT_EMPTY' });
  });

  it('fails an empty or blank JSONL file, or empty stdin, like an empty CSV file', async () => {
    for (const path of [file('empty.jsonl', ''), file('blank.jsonl', '\n  \r\n\n')]) {
      const input = await openInput({ path, stdin: noStdin });
      await expect(input.columns).rejects.toMatchObject({ code: 'E_INPUT_EMPTY' });
    }
    const stdin = await openInput({ path: '-', format: 'jsonl', stdin: bytes('\n\n') });
    await expect(stdin.columns).rejects.toMatchObject({ code: 'E_INPUT_EMPTY' });
  });
});

describe('read progress', () => {
  it('counts the bytes behind the rows read, the way the reader reads them: quoted newlines, blank lines, no header', async () => {
    const text = 'a,b\r\n"x\r\ny",1\r\n\r\n12" pipe,2\r\n"say ""hi""\n",3\n4,5';
    const path = file('count.csv', text);
    const input = await openInput({ path, stdin: noStdin });
    expect(input.progress).toMatchObject({ byteSize: Buffer.byteLength(text), bytesRead: 0, rowsRead: 0, done: false });
    const read = await readAll(input);
    expect(read.rows).toHaveLength(4);
    expect(input.progress).toEqual({ byteSize: Buffer.byteLength(text), bytesRead: Buffer.byteLength(text), rowsRead: 4, done: true });
    expect(estimatedRows(input.progress!)).toBe(4);
  });

  it("ends with the fixtures' rows and bytes as the reader reads them", async () => {
    for (const name of ['district-offices.csv', 'bom-crlf-quoted-newlines.csv', 'ragged-rows.csv', 'header-only.csv']) {
      const input = await openInput({ path: `${FIXTURES}${name}`, stdin: noStdin });
      const read = await readAll(input);
      expect(input.progress, name).toMatchObject({ rowsRead: read.rows.length, done: true });
      expect(input.progress!.bytesRead, name).toBe(input.progress!.byteSize);
    }
  });

  it('counts non-blank JSONL lines', async () => {
    const input = await openInput({ path: `${FIXTURES}bad-line-and-blanks.jsonl`, stdin: noStdin });
    await readAll(input);
    expect(input.progress).toMatchObject({ rowsRead: 5, done: true });
  });

  it('estimates the rows of the whole file from the bytes read, within 3%', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `${i + 1} ${'MAIN ST'.repeat(1 + (i % 3))},2120${i % 10}`);
    for (const [name, text] of [
      ['many.csv', `address,zipcode\n${lines.join('\n')}\n`],
      ['many.jsonl', lines.map((line) => JSON.stringify({ address: line })).join('\n')],
    ] as const) {
      const input = await openInput({ path: file(name, text), stdin: noStdin });
      await input.columns;
      let estimate: number | undefined;
      for await (const row of input.rows) {
        if (row.row === 5_000) estimate = estimatedRows(input.progress!);
      }
      expect(Math.abs(estimate! - 20_000), name).toBeLessThan(600);
      expect(estimatedRows(input.progress!), name).toBe(20_000);
    }
  });
});
