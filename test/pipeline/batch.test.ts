import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fake-clock.js';
import { runMain } from '../helpers/run-main.js';
import { ROUTES, sandboxPerTest } from '../helpers/sandbox-per-test.js';

function workdir(): string {
  return mkdtempSync(join(tmpdir(), 'propdata-batch-'));
}

function csvFile(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

type Row = Record<string, string>;
const readCsv = (path: string): Row[] => parse<Row>(readFileSync(path), { columns: true, bom: true });

/** The fields of --report these tests read. */
interface Report {
  records: Record<'ok' | 'partial' | 'no_content' | 'invalid_input' | 'error', number>;
  requests: number;
  componentsUsed: number;
  retries: number;
  rateLimits: string;
  rateLimitWaits: number;
}
const readReport = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Report;

/** A JSON or JSONL record: `_row`, `_status`, `_input`, then the chunk's members. */
interface JsonRecord {
  _status: string;
  _input: Record<string, string>;
  meta?: string;
  address_info: { status: { match: boolean } };
}

function addresses(count: number, extra: (i: number) => string = () => ''): string {
  const lines = ['address,zipcode,note'];
  for (let i = 1; i <= count; i++) lines.push(`${i} Main St,21${String(i % 1000).padStart(3, '0')},n${i}${extra(i)}`);
  return `${lines.join('\n')}\n`;
}

// Each scenario runs against the sandbox and through a gateway in front of it (propdata serve): a
// client changes only its base URL and credentials.
describe.each(ROUTES)('batch enrichment against the sandbox, %s', (route) => {
  const sandbox = sandboxPerTest(route);

  it('writes one record per row, in input order, under concurrency and random latency', async () => {
    const env = await sandbox.start({ latencyMs: [0, 40] });
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', addresses(450));
    const output = join(dir, 'out.csv');
    const result = await runMain(['property', 'value', '-i', input, '-o', output, '--batch-size', '7', '--concurrency', '6'], { env });
    expect(result.code).toBe(0);
    const rows = readCsv(output);
    expect(rows.map((row) => row._row)).toEqual(Array.from({ length: 450 }, (_, i) => String(i + 1)));
    expect(rows.map((row) => row.note)).toEqual(Array.from({ length: 450 }, (_, i) => `n${i + 1}`));
    expect(rows.every((row) => row._status === 'ok' || row._status === 'no_content')).toBe(true);
    expect(Number(rows.find((row) => row._status === 'ok')!['property/value.value.price_mean'])).toBeGreaterThan(0);
  });

  it('never sends more than 100 items or mixed key sets in one POST', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const lines = ['address,unit,zipcode'];
    for (let i = 1; i <= 260; i++) lines.push(`${i} Oak Ave,${i % 3 === 0 ? `Apt ${i}` : ''},21201`);
    const input = csvFile(dir, 'in.csv', `${lines.join('\n')}\n`);
    const output = join(dir, 'out.csv');
    const result = await runMain(['property', 'value', '-i', input, '-o', output, '--report', join(dir, 'report.json')], { env });
    expect(result.code).toBe(0);
    const rows = readCsv(output);
    expect(rows).toHaveLength(260);
    const report = readReport(join(dir, 'report.json'));
    // The sandbox answers a POST of more than 100 items, or of mixed key sets, with a 400 (invalid_input).
    expect(report.records.ok + report.records.no_content).toBe(260);
    // 174 rows without a unit, 86 with: at least 2 + 1 POSTs; the first is a small probe of the windows.
    expect(report.requests).toBeGreaterThanOrEqual(3);
    expect(report.requests).toBeLessThanOrEqual(5);
  });

  it('keeps every input column verbatim and echoes meta', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', 'Street,ZIP,meta,"odd, column"\n43 Valmonte Plaza,90274,m-1,"x, y"\n1 NOMATCH Rd,90274,m-2,z\n');
    const output = join(dir, 'out.json');
    const result = await runMain(['property', 'value', '-i', input, '-o', output], { env });
    expect(result.code).toBe(0);
    const records = JSON.parse(readFileSync(output, 'utf8')) as JsonRecord[];
    expect(records[0]!._input).toEqual({ Street: '43 Valmonte Plaza', ZIP: '90274', meta: 'm-1', 'odd, column': 'x, y' });
    expect(records[0]!.meta).toBe('m-1');
    expect(records[0]!._status).toBe('ok');
    expect(records[1]!._status).toBe('no_content');
    expect(records[1]!.meta).toBe('m-2');
    expect(records[1]!.address_info.status.match).toBe(false);
  });

  it('records invalid rows with the reason and still sends the rest (exit 3)', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', 'address,zipcode\n1 Main St,21201\n,21201\n2 Main St,21201\n');
    const output = join(dir, 'out.csv');
    const result = await runMain(['property', 'value', '-i', input, '-o', output], { env });
    expect(result.code).toBe(3);
    const rows = readCsv(output);
    expect(rows.map((row) => row._status)).toEqual([
      expect.stringMatching(/ok|no_content/),
      'invalid_input',
      expect.stringMatching(/ok|no_content/),
    ]);
    expect(rows[1]!._error).toMatch(/address or (a )?slug/);
    expect(result.stderr).toMatch(/1 invalid_input/);
  });

  it('reads JSONL from stdin, writes JSONL to stdout, and turns a bad line into a record', async () => {
    const env = await sandbox.start();
    const stdin = '{"address":"1 Main St","zipcode":"21201"}\nnot json\n\n{"address":"2 Main St","zipcode":"21201"}\n';
    const result = await runMain(['property', 'value', '-i', '-', '--input-format', 'jsonl', '--format', 'jsonl'], { env, stdin });
    expect(result.code).toBe(3);
    const records = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JsonRecord);
    expect(records.map((r) => r._status)).toEqual([expect.any(String), 'invalid_input', expect.any(String)]);
    expect(records[0]!._status).not.toBe('invalid_input');
  });

  it('handles BOM, CRLF and quoted newlines in CSV input', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', '\ufeffaddress,zipcode,comment\r\n1 Main St,21201,"two\r\nlines"\r\n2 Main St,21201,plain\r\n');
    const output = join(dir, 'out.csv');
    const result = await runMain(['property', 'value', '-i', input, '-o', output], { env });
    expect(result.code).toBe(0);
    const rows = readCsv(output);
    expect(rows.map((row) => row.comment)).toEqual(['two\r\nlines', 'plain']);
    expect(Object.keys(rows[0]!)[0]).toBe('address');
  });

  it('sends an mget with one component per endpoint and counts components as the spec does', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', addresses(4));
    const output = join(dir, 'out.csv');
    const report = join(dir, 'report.json');
    const result = await runMain(
      ['mget', 'property/value,property/school,property/census,property/block_crime', '-i', input, '-o', output, '--report', report],
      { env },
    );
    expect(result.code).toBe(0);
    expect(readReport(report).componentsUsed).toBe(16);
    expect(sandbox.current.usage().components).toBe(16);
    const header = Object.keys(readCsv(output)[0]!);
    expect(header).toEqual(
      expect.arrayContaining(['property/value.api_code', 'property/school.api_code', 'property/block_crime.all.incidents']),
    );
  });

  // The waits are virtual here (test/pipeline/retries.test.ts has the full mix, 429s included):
  // this one checks the same over HTTP, with the sandbox's own faults and backoff on Io.clock.
  // Through a gateway, the gateway meets the faults and retries them: the CLI sees none.
  it.runIf(route === 'directly')('retries injected faults without losing or duplicating a row', async () => {
    const env = await sandbox.start({ failRate: 0.1, resetRate: 0.05, latencyMs: [0, 10], seed: 'faults' });
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', addresses(150));
    const output = join(dir, 'out.csv');
    const report = join(dir, 'report.json');
    const clock = new FakeClock(Date.now());
    const result = await runMain(
      ['property', 'value', '-i', input, '-o', output, '--batch-size', '10', '--max-retries', '10', '--report', report],
      { env, clock },
    );
    expect(result.code).toBe(0);
    const rows = readCsv(output);
    expect(rows.map((row) => row._row)).toEqual(Array.from({ length: 150 }, (_, i) => String(i + 1)));
    expect(sandbox.current.usage().components).toBe(150);
    const summary = readReport(report);
    expect(summary.retries).toBeGreaterThan(0);
    // The backoff was waited on the run's clock, not endured.
    expect(clock.slept.length).toBe(summary.retries);
  });

  it('learns a window tighter than --rate from the first answer and never runs into it', async () => {
    // 20 a day: the probe (10) and what the window has left (10) go; the rest would wait past --max-wait.
    const env = await sandbox.start({ rateLimits: [{ limit: 20, periodSeconds: 86_400 }] });
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', addresses(30));
    const output = join(dir, 'out.csv');
    const report = join(dir, 'report.json');
    const result = await runMain(
      ['property', 'value', '-i', input, '-o', output, '--rate', '100000', '--max-wait', '1s', '--report', report],
      { env },
    );
    expect(result.code).toBe(5);
    expect(readCsv(output).map((row) => row._row)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
    const summary = readReport(report);
    expect(summary.rateLimits).toBe('20/86400s');
    expect(summary.rateLimitWaits).toBe(0);
    expect(summary.requests).toBe(2);
    expect(sandbox.current.usage().components).toBe(20);
  });

  it('stops at a 401 with exit 1 and a clear message, keeping what was written', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', addresses(5));
    const result = await runMain(['property', 'value', '-i', input, '-o', join(dir, 'out.csv')], {
      env: { ...env, PROPDATA_API_SECRET: 'wrong-secret' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/authentication failed/);
    expect(result.stderr).not.toContain('wrong-secret');
  });

  it('stops when the credit is exhausted (exit 1), saying to add payment information', async () => {
    const env = await sandbox.start({ credit: 0.3 });
    const dir = workdir();
    const input = csvFile(dir, 'in.csv', addresses(30));
    const result = await runMain(['property', 'value', '-i', input, '-o', join(dir, 'out.csv'), '--batch-size', '1'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/credit exhausted/);
  });
});
