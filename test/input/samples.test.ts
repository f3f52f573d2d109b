import { describe, expect, it } from 'vitest';
import { findEndpoint } from '../../src/catalog/index.js';
import { openInput } from '../../src/input/open-input.js';
import { createPreparer } from '../../src/input/prepare.js';
import type { PreparedItem } from '../../src/input/row.js';
import { Readable } from 'node:stream';

const SAMPLES = new URL('../../samples/', import.meta.url).pathname;

async function prepareSample(name: string, level: 'property' | 'block', endpoint: string): Promise<PreparedItem[]> {
  const input = await openInput({ path: `${SAMPLES}${name}`, stdin: Readable.from([]) });
  await input.columns;
  const prepare = createPreparer({ level, endpoints: [findEndpoint(endpoint)!], fixedParams: {}, map: {} });
  const prepared: PreparedItem[] = [];
  for await (const row of input.rows) prepared.push(prepare(row));
  return prepared;
}

describe('samples', () => {
  it('addresses.csv: 52 sendable rows (two of them NOMATCH) and one invalid row, as samples/README.md says', async () => {
    const prepared = await prepareSample('addresses.csv', 'property', 'property/value');
    expect(prepared).toHaveLength(53);
    expect(prepared.filter((each) => each.invalid).map((each) => each.row)).toEqual([53]);
    expect(prepared.filter((each) => String(each.item?.address).includes('NOMATCH')).map((each) => each.row)).toEqual([51, 52]);
    expect(prepared[2]!.item).toEqual({ address: '409 MAIN ST', city: 'REISTERSTOWN', state: 'MD', zipcode: '21136' });
  });

  it('homes.csv, homes.jsonl and blocks.csv prepare without a single invalid row', async () => {
    const homesCsv = await prepareSample('homes.csv', 'property', 'property/value');
    const homes = await prepareSample('homes.jsonl', 'property', 'property/value');
    const blocks = await prepareSample('blocks.csv', 'block', 'block/hcri');
    expect([homesCsv.length, homes.length, blocks.length]).toEqual([17, 40, 30]);
    expect([...homesCsv, ...homes, ...blocks].filter((each) => each.invalid)).toEqual([]);
  });

  it('slugs-with-values.csv supplies client_value per row', async () => {
    const prepared = await prepareSample('slugs-with-values.csv', 'property', 'property/value_within_block');
    expect(prepared.map((each) => each.item?.client_value)).toEqual([1000000, 1200000]);
  });
});
