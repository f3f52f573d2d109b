import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { scriptedServerPerTest } from '../helpers/scripted-server.js';

const server = scriptedServerPerTest();

type Item = { address: string; zipcode: string; meta?: string };

/** A chunk whose value is the item's row (the number its address starts with), echoing it as the service does. */
function chunkOf(item: Item, echo: 'meta' | 'requested_item'): Record<string, unknown> {
  const { meta, ...identifiers } = item;
  return {
    address_info: {
      address_full: 'RESOLVED',
      status: { match: true, ...(echo === 'requested_item' ? { requested_item: identifiers } : {}) },
    },
    ...(echo === 'meta' ? { meta } : {}),
    'property/value': { api_code: 0, api_code_description: 'ok', result: { value: { price_mean: Number.parseInt(item.address, 10) } } },
  };
}

/** Five rows in one POST, answered without row 3's chunk; the rest come back in reverse order. */
async function runFive(header: string, row: (n: number) => string, echo: 'meta' | 'requested_item') {
  const env = await server.serve((request) => {
    const items = JSON.parse(request.body) as Item[];
    const chunks = items.filter((item) => !item.address.startsWith('3 ')).map((item) => chunkOf(item, echo));
    return { status: 200, body: JSON.stringify(chunks.reverse()) };
  });
  const dir = mkdtempSync(join(tmpdir(), 'propdata-chunk-count-'));
  const input = join(dir, 'in.csv');
  writeFileSync(input, `${header}\n${[1, 2, 3, 4, 5].map(row).join('\n')}\n`);
  const output = join(dir, 'out.jsonl');
  const result = await runMain(['property', 'value', '-i', input, '-o', output, '--no-store', '-q'], { env });
  const records = readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ...result, records };
}

const valueOf = (record: Record<string, unknown>) =>
  (record['property/value'] as { result?: { value: { price_mean: number } } } | undefined)?.result?.value.price_mean;

describe('an answer with fewer chunks than items', () => {
  it('keeps each chunk that names its item by the echoed meta, and makes only the missing row an error', async () => {
    const result = await runFive('address,zipcode,meta', (n) => `${n} Main St,21201,m${n}`, 'meta');
    expect(result.code).toBe(3);
    expect(result.records.map((record) => record._status)).toEqual(['ok', 'ok', 'error', 'ok', 'ok']);
    expect(result.records.map(valueOf)).toEqual([1, 2, undefined, 4, 5]);
    expect(result.records.map((record) => record.meta)).toEqual(['m1', 'm2', undefined, 'm4', 'm5']);
    expect(result.records[2]!._error).toMatch(/no chunk that can be told to be this item's/);
    expect(server.current.requests).toHaveLength(1);
  });

  it('keeps each chunk that names its item by the identifiers it repeats as sent', async () => {
    const result = await runFive('address,zipcode', (n) => `${n} Main St,21201`, 'requested_item');
    expect(result.code).toBe(3);
    expect(result.records.map((record) => record._status)).toEqual(['ok', 'ok', 'error', 'ok', 'ok']);
    expect(result.records.map(valueOf)).toEqual([1, 2, undefined, 4, 5]);
    expect(server.current.requests).toHaveLength(1);
  });
});

describe('a one-off answered with an empty array', () => {
  it('says the service answered no chunk and exits 1, without asking again', async () => {
    const env = await server.serve(() => ({ status: 200, body: '[]' }));
    const result = await runMain(['property', 'value', '--slug', 'abc'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    // A one-off is a batch of one: its answer read as a batch's is.
    expect(result.stderr.trim()).toBe("propdata: the service's answer holds no chunk that can be told to be this item's");
    expect(server.current.requests).toHaveLength(1);
  });
});
