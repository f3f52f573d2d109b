import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { sniffDelimiter } from '../../src/input/delimiter.js';
import { parseDelimiter } from '../../src/input/delimiter.js';
import { runMain } from '../helpers/run-main.js';

describe('the delimiter of a CSV', () => {
  it('is found from the header line, comma on a tie or when none is there', () => {
    expect(sniffDelimiter('address;city;zipcode\n1 Main;x;1,2\n')).toBe(';');
    expect(sniffDelimiter('\uFEFFaddress\tzipcode\r\n')).toBe('\t');
    expect(sniffDelimiter('address|zipcode\n')).toBe('|');
    expect(sniffDelimiter('address,zipcode;x\n')).toBe(',');
    expect(sniffDelimiter('"a;b;c",zipcode\n')).toBe(',');
    expect(sniffDelimiter('\n\naddress\n')).toBe(',');
  });

  it('--delimiter takes one character, tab spelt out', () => {
    expect(parseDelimiter(';')).toBe(';');
    expect(parseDelimiter('tab')).toBe('\t');
    expect(parseDelimiter('\\t')).toBe('\t');
    expect(() => parseDelimiter(';;')).toThrow(/one character/);
    expect(() => parseDelimiter('"')).toThrow(/one character/);
  });
});

describe('CSV inputs a newcomer brings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-delimiter-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads a semicolon-delimited file, and says which delimiter it used', async () => {
    const input = file('semi.csv', 'address;city;state;zipcode\n405 DYER AVE;REISTERSTOWN;MD;21136\n');
    const result = await runMain(['property', 'value', '--input', input, '--format', 'jsonl', '--sandbox', '--no-store']);
    expect(result.stderr).toContain('reading the CSV with the semicolon as its delimiter');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.trim()) as unknown).toMatchObject({
      _status: 'ok',
      _input: { address: '405 DYER AVE', zipcode: '21136' },
    });
  });

  it('reads a tab-delimited file under --delimiter tab, and names it', async () => {
    const input = file('tabs.csv', 'address\tzipcode\n405 DYER AVE\t21136\n');
    const result = await runMain([
      'property',
      'value',
      '--input',
      input,
      '--delimiter',
      'tab',
      '--format',
      'jsonl',
      '--sandbox',
      '--no-store',
    ]);
    expect(result.stderr).toContain('propdata: reading the CSV with the tab as its delimiter, as --delimiter says\n');
    expect(JSON.parse(result.stdout.trim()) as unknown).toMatchObject({ _status: 'ok' });
  });

  it('names the delimiter of an Excel CSV whose first line is sep=; (CRLF, Windows-1252), in one line', async () => {
    const input = join(dir, 'excel-sep.csv');
    const text = 'sep=;\r\naddress;zipcode;owner\r\n405 DYER AVE;21136;Zoë Müller\r\n43 Valmonte Plaza;90274;Ann\r\n';
    writeFileSync(input, iconv.encode(text, 'windows-1252'));
    const result = await runMain(['property', 'value', '--input', input, '--format', 'jsonl', '--sandbox', '--no-store']);
    expect(result.code, result.stderr).toBe(0);
    const notes = result.stderr.split('\n').filter((line) => line.includes('as its delimiter'));
    expect(notes).toEqual([
      'propdata: reading the CSV with the semicolon as its delimiter, as its first line sep=; says (--delimiter chooses another)',
    ]);
    const records = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { _status: string; _input: Record<string, string> });
    expect(records.map((record) => [record._status, record._input.owner])).toEqual([
      ['ok', 'Zoë Müller'],
      ['ok', 'Ann'],
    ]);
  });

  it('names a tab found from a .tsv name, and says nothing of a comma', async () => {
    const tsv = await runMain([
      'property',
      'value',
      '--input',
      file('homes.tsv', 'address\tzipcode\n405 DYER AVE\t21136\n'),
      '--sandbox',
      '--no-store',
    ]);
    expect(tsv.stderr).toContain('reading the CSV with the tab as its delimiter, as its .tsv or .tab name says');
    const comma = await runMain([
      'property',
      'value',
      '--input',
      file('homes.csv', 'address,zipcode\n405 DYER AVE,21136\n'),
      '--sandbox',
      '--no-store',
    ]);
    expect(comma.code).toBe(0);
    expect(comma.stderr).not.toContain('as its delimiter');
  });

  it('refuses a file without a header row in one message, before sending anything', async () => {
    const input = file('free.txt', '1000 w temple st los angeles ca 90012\n100 route 37 e toms river nj 08753\n');
    const result = await runMain(['property', 'value', '--input', input, '--input-format', 'csv', '--sandbox', '--no-store']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/seems to have no header row/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });

  it('tells a one-off with rows piped in to use --input -', async () => {
    const result = await runMain(['property', 'value'], { stdin: 'address,zipcode\n1 Main St,21204\n' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--address.*add --input -/);
  });
});
