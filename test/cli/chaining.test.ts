import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

const headerOf = (path: string) => readFileSync(path, 'utf8').split('\n')[0]!.split(',');

describe('chaining runs', () => {
  it("reads an earlier run's output as input, renaming the columns that collide, three runs deep", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-chain-'));
    const env = { PROPDATA_HOME: dir, PROPDATA_CONFIG_DIR: dir };
    writeFileSync(join(dir, 'in.csv'), 'address,zipcode,_status\n43 Valmonte Plaza,90274,checked\n');
    const run = (command: string[], input: string, output: string) =>
      runMain([...command, '--sandbox', '--no-store', '--quiet', '--input', join(dir, input), '--output', join(dir, output)], { env });
    expect((await run(['property', 'geocode'], 'in.csv', 'one.csv')).code).toBe(0);
    expect((await run(['property', 'value'], 'one.csv', 'two.csv')).code).toBe(0);
    const third = await run(['property', 'value'], 'two.csv', 'three.csv');
    expect(third.stderr).not.toMatch(/twice/);
    expect(third.code).toBe(0);
    for (const file of ['one.csv', 'two.csv', 'three.csv']) {
      const header = headerOf(join(dir, file));
      expect(new Set(header).size).toBe(header.length);
    }
    expect(headerOf(join(dir, 'one.csv')).slice(0, 4)).toEqual(['address', 'zipcode', 'input._status', '_row']);
    expect(headerOf(join(dir, 'two.csv')).slice(0, 5)).toEqual([
      'address',
      'zipcode',
      'input._status',
      'input._row',
      'input.input._status',
    ]);
  });
});
