import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { chunkFor, startScriptedServer, type Script, type ScriptedServer } from '../helpers/scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(script: Script, rows: string[]) {
  server = await startScriptedServer(script);
  const input = join(mkdtempSync(join(tmpdir(), 'propdata-400-')), 'in.csv');
  writeFileSync(input, `address,zipcode\n${rows.join('\n')}\n`);
  const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's3cret' };
  const result = await runMain(['property', 'value', '-i', input, '--batch-size', '8'], { env });
  return { ...result, rows: parse<Record<string, string>>(result.stdout, { columns: true }) };
}

const RATE = {
  'x-ratelimit-period': '60',
  'x-ratelimit-limit': '100000',
  'x-ratelimit-remaining': '99999',
  'x-ratelimit-reset': '4102444800',
};
const addresses = (count: number, bad: number[]) =>
  Array.from({ length: count }, (_, i) => `${bad.includes(i + 1) ? 'Refused' : i + 1} Main St,21201`);

// End to end, over HTTP; the halving itself (several culprits, a wholesale rejection in three
// requests, a single item) is unit-tested in bad-request-isolation.test.ts.
describe('a 400 for a batch', () => {
  it('is narrowed to the item that causes it: only that row is invalid_input, every other row answered once', async () => {
    const answered: string[] = [];
    const result = await run(
      (request) => {
        const items = JSON.parse(request.body) as { address: string }[];
        if (items.some((item) => item.address.startsWith('Refused'))) {
          return { status: 400, body: '{"message":"address is not a street address"}', headers: RATE };
        }
        answered.push(...items.map((item) => item.address));
        return { status: 200, body: JSON.stringify(items.map(() => chunkFor(['property/value']))), headers: RATE };
      },
      addresses(8, [3]),
    );
    expect(result.code).toBe(3);
    expect(result.rows.map((row) => row._status)).toEqual(['ok', 'ok', 'invalid_input', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(result.rows[2]!._error).toBe('the service rejected the request: address is not a street address');
    // Successful halves are answered (and charged) once each: no item is sent twice after a 200.
    expect(answered.sort()).toEqual(['1 Main St', '2 Main St', '4 Main St', '5 Main St', '6 Main St', '7 Main St', '8 Main St']);
  });
});
