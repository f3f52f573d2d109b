import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { chunkFor, scriptedServerPerTest, type ScriptedReply } from '../helpers/scripted-server.js';

/** Successes whose body holds nothing to read: the service may have served (and charged) each of them. */
const UNREADABLE: readonly (readonly [string, ScriptedReply, RegExp])[] = [
  ['malformed JSON', { status: 200, body: '[{"address_info": {' }, /a body that is not JSON/],
  [
    'an HTML page',
    { status: 200, body: '<html><body>Service Unavailable</body></html>', headers: { 'content-type': 'text/html' } },
    /an HTML page/,
  ],
  ['an empty body', { status: 200, body: '' }, /an empty body/],
  ['null', { status: 200, body: 'null' }, /JSON null, not an array of chunks/],
  ['a bare 204', { status: 204 }, /HTTP 204/],
];

const server = scriptedServerPerTest();

const answer = (body: string): ScriptedReply => ({
  status: 200,
  body: JSON.stringify((JSON.parse(body) as unknown[]).map(() => chunkFor(['property/value']))),
});

/** Ten rows in two batches of five; `script` answers each POST, knowing the first row of its batch. */
async function runTen(script: (body: string, firstRow: number, index: number) => ScriptedReply) {
  const env = await server.serve((request, index) => {
    const [first] = JSON.parse(request.body) as { address: string }[];
    return script(request.body, Number.parseInt(first!.address, 10), index);
  });
  const dir = mkdtempSync(join(tmpdir(), 'propdata-unreadable-'));
  const input = join(dir, 'in.csv');
  writeFileSync(input, `address,zipcode\n${Array.from({ length: 10 }, (_, i) => `${i + 1} Main St,21201`).join('\n')}\n`);
  const output = join(dir, 'out.csv');
  const report = join(dir, 'report.json');
  const sending = ['--batch-size', '5', '--concurrency', '1', '--no-store'];
  const result = await runMain(['property', 'value', '-i', input, '-o', output, '--report', report, ...sending], { env });
  return {
    ...result,
    records: parse<Record<string, string>>(readFileSync(output, 'utf8'), { columns: true }),
    report: JSON.parse(readFileSync(report, 'utf8')) as { retriedPossiblyCharged: number; retries: number },
  };
}

describe('a batch answered with a success whose body cannot be read', () => {
  for (const [name, reply, problem] of UNREADABLE) {
    it(`sends it once more, not five times, then writes its rows as error and counts the retry as possibly charged: ${name}`, async () => {
      const result = await runTen((body, first) => (first === 1 ? reply : answer(body)));
      expect(result.code).toBe(3);
      expect(result.records.map((record) => record._status)).toEqual([...Array(5).fill('error'), ...Array(5).fill('ok')]);
      expect(result.records[0]!._error).toMatch(problem);
      expect(result.records[0]!._error).toMatch(/may have been charged/);
      const firstBatch = server.current.requests.filter((request) => request.body.includes('"1 Main St"'));
      expect(firstBatch).toHaveLength(2);
      expect(result.report.retriedPossiblyCharged).toBe(1);
      expect(result.stderr).toMatch(/1 retried requests .*had an unreadable answer: the service may have charged them twice/);
    });
  }

  it('keeps the answer of the retry when it can be read', async () => {
    const result = await runTen((body, _first, index) => (index === 0 ? { status: 200, body: 'null' } : answer(body)));
    expect(result.code).toBe(0);
    expect(result.records.map((record) => record._status)).toEqual(Array(10).fill('ok'));
    expect(server.current.requests).toHaveLength(3);
    expect(result.report.retriedPossiblyCharged).toBe(1);
  });
});

describe('a one-off answered with a success whose body cannot be read', () => {
  for (const [name, reply, problem] of UNREADABLE) {
    it(`asks once more, then says what came back in one line and exits 1: ${name}`, async () => {
      const env = await server.serve(() => reply);
      const result = await runMain(['property', 'value', '--slug', 'abc'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^propdata: unreadable answer to v2\/property\/value/)]);
      expect(result.stderr).toMatch(problem);
      expect(result.stdout).toBe('');
      expect(server.current.requests).toHaveLength(2);
    });
  }
});
