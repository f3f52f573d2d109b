import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { ROUTES, sandboxPerTest } from '../helpers/sandbox-per-test.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/input/', import.meta.url));

const sandbox = sandboxPerTest();

function workdir(): string {
  return mkdtempSync(join(tmpdir(), 'propdata-unattended-'));
}

function file(dir: string, name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

type Row = Record<string, string>;
const readCsv = (path: string): Row[] => parse<Row>(readFileSync(path), { columns: true, bom: true });

/** 40 rows over 10 distinct addresses, each row with its own meta. */
function repeatedAddresses(): string {
  const lines = ['address,zipcode,meta'];
  for (let i = 1; i <= 40; i++) lines.push(`${(i % 10) + 1} Repeat Rd,21201,m${i}`);
  return `${lines.join('\n')}\n`;
}

function addresses(count: number): string {
  const lines = ['address,zipcode'];
  for (let i = 1; i <= count; i++) lines.push(`${i} Budget Blvd,21201`);
  return `${lines.join('\n')}\n`;
}

// Deduplication and budgets hold for a client of a gateway (propdata serve) as they do against the service.
describe.each(ROUTES)('deduplication, %s', (route) => {
  const sandbox = sandboxPerTest(route);

  it('sends each distinct item once, writes every row with its own meta, and says what it saved', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = file(dir, 'in.csv', repeatedAddresses());
    const output = join(dir, 'out.csv');
    const report = join(dir, 'report.json');
    const result = await runMain(['property', 'value', '-i', input, '-o', output, '--report', report, '--batch-size', '4'], { env });
    expect(result.code).toBe(0);
    expect(sandbox.current.usage().components).toBe(10);
    const rows = readCsv(output);
    expect(rows.map((row) => row._meta)).toEqual(Array.from({ length: 40 }, (_, i) => `m${i + 1}`));
    expect(rows[10]!['property/value.value.price_mean']).toBe(rows[0]!['property/value.value.price_mean']);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ componentsUsed: 10, componentsSaved: 30 });
    expect(result.stderr).toMatch(/30 saved by deduplication/);
  });

  it('sends every row with --no-dedupe', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const result = await runMain(
      ['property', 'value', '-i', file(dir, 'in.csv', repeatedAddresses()), '-o', join(dir, 'out.csv'), '--no-dedupe'],
      { env },
    );
    expect(result.code).toBe(0);
    // A gateway buys each item once whatever its clients send: the repeats are answered from its store.
    expect(sandbox.current.usage().components).toBe(route === 'directly' ? 40 : 10);
  });
});

describe('estimates', () => {
  it('estimate reads and validates the input and prices it, without credentials or a request', async () => {
    const dir = workdir();
    const input = file(dir, 'in.csv', `${repeatedAddresses()},21201,no-address\n`);
    const result = await runMain(
      ['estimate', 'property/value,property/school', '-i', input, '--batch-size', '4', '--price', 'property/school=0.5'],
      { env: {} },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/rows:\s+41/);
    expect(result.stdout).toMatch(/invalid rows:\s+1/);
    expect(result.stdout).toMatch(/unique items:\s+10 to send \(30 duplicates/);
    expect(result.stdout).toMatch(/components:\s+20/);
    expect(result.stdout).toMatch(/requests:\s+3/);
    // 10 items x (0.25 value + 0.50 school override)
    expect(result.stdout).toMatch(/expected cost:\s+7\.50 USD/);
    expect(result.stdout).toMatch(/row 41: needs an address or a slug/);
  });

  it('--dry-run on a batch command sends nothing and writes no output', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const result = await runMain(['property', 'value', '-i', file(dir, 'in.csv', addresses(5)), '-o', join(dir, 'out.csv'), '--dry-run'], {
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/components:\s+5/);
    expect(sandbox.current.usage().components).toBe(0);
    expect(readdirSync(dir)).toEqual(['in.csv']);
  });
});

describe.each(ROUTES)('budgets, %s', (route) => {
  const sandbox = sandboxPerTest(route);

  it('--max-components stops before passing the cap (exit 4), and --resume finishes the same file', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = file(dir, 'in.csv', addresses(50));
    const reference = join(dir, 'reference.csv');
    expect(
      (await runMain(['property', 'value', '-i', input, '-o', reference, '--batch-size', '10', '--concurrency', '1', '-q'], { env })).code,
    ).toBe(0);

    const output = join(dir, 'out.csv');
    const args = ['property', 'value', '-i', input, '-o', output, '--batch-size', '10', '--concurrency', '1'];
    const stopped = await runMain([...args, '--max-components', '25'], { env });
    expect(stopped.code).toBe(4);
    // The last request is fitted to what remains: 25 items, not 20 in whole batches.
    expect(stopped.stderr).toMatch(/stopped before --max-components 25 is passed \(25 used\)/);
    expect(stopped.stderr).toMatch(/--resume/);
    expect(readCsv(output)).toHaveLength(25);
    const resumed = await runMain([...args, '--resume', '-q'], { env });
    expect(resumed.code).toBe(0);
    expect(readFileSync(output).equals(readFileSync(reference))).toBe(true);
  });

  it('--max-cost counts list price and fits the last request to what remains', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    // property/value lists at 0.25 USD: 1.00 USD buys 4 items, so the second POST carries 1 of its 3.
    const result = await runMain(
      [
        'property',
        'value',
        '-i',
        file(dir, 'in.csv', addresses(9)),
        '-o',
        join(dir, 'out.csv'),
        '--batch-size',
        '3',
        '--concurrency',
        '1',
        '--max-cost',
        '1',
      ],
      { env },
    );
    expect(result.code).toBe(4);
    expect(sandbox.current.usage().components).toBe(4);
    expect(readCsv(join(dir, 'out.csv'))).toHaveLength(4);
    expect(result.stderr).toMatch(/--max-cost 1 USD/);
  });

  it('a budget smaller than one batch still makes progress, run after run; one below an item says so', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = file(dir, 'in.csv', addresses(12));
    const output = join(dir, 'out.csv');
    const args = ['property', 'value', '-i', input, '-o', output, '--max-cost', '1', '-q'];
    expect((await runMain(args, { env })).code).toBe(4);
    expect(readCsv(output)).toHaveLength(4);
    expect((await runMain([...args, '--resume'], { env })).code).toBe(4);
    expect(readCsv(output)).toHaveLength(8);
    expect((await runMain([...args, '--resume'], { env })).code).toBe(0);
    expect(readCsv(output)).toHaveLength(12);
    expect(sandbox.current.usage().components).toBe(12);

    const tooSmall = await runMain(['property', 'value', '-i', input, '-o', join(dir, 'small.csv'), '--max-cost', '0.1'], { env });
    expect(tooSmall.code).toBe(4);
    expect(tooSmall.stderr).toMatch(/less than one item's list price \(0\.25 USD\); raise it to at least 0\.25/);
    expect(sandbox.current.usage().components).toBe(12);
  });
});

describe('spreadsheet output', () => {
  it('--excel writes a BOM and neutralises cells that would run as formulas', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const input = file(dir, 'in.csv', 'address,zipcode,note\n1 Main St,21201,=HYPERLINK("http://x")\n2 Main St,21201,-12.5\n');
    const output = join(dir, 'out.csv');
    expect((await runMain(['property', 'value', '-i', input, '-o', output, '--excel'], { env })).code).toBe(0);
    const text = readFileSync(output, 'utf8');
    expect(text.startsWith('\ufeffaddress,')).toBe(true);
    expect(readCsv(output).map((row) => row.note)).toEqual([`'=HYPERLINK("http://x")`, '-12.5']);
  });
});

describe('secrets', () => {
  it('never appear in records, progress, summary, report, errors or --verbose logs', async () => {
    const secret = 'S3cret-Never-Printed-42';
    const env = await sandbox.start({ secret, failRate: 0.3, seed: 'secrets' });
    const dir = workdir();
    const output = join(dir, 'out.jsonl');
    const report = join(dir, 'report.json');
    const input = file(
      dir,
      'in.csv',
      `address,zipcode,meta\n${Array.from({ length: 30 }, (_, i) => `${i} Key St,21201,${i}`).join('\n')}\n`,
    );
    const run = await runMain(['property', 'value', '-i', input, '-o', output, '--report', report, '--batch-size', '3', '--verbose'], {
      env: { ...env, PROPDATA_API_SECRET: secret },
      tty: true,
    });
    expect(run.stderr).toMatch(/POST \/v2\/property\/value items=3 -> 200/);
    const refused = await runMain(['property', 'value', '--address', '1 Key St', '--zipcode', '21201', '--verbose'], {
      env: { ...env, PROPDATA_API_SECRET: `${secret}-wrong` },
    });
    expect(refused.code).toBe(1);
    for (const text of [
      run.stdout,
      run.stderr,
      readFileSync(output, 'utf8'),
      readFileSync(report, 'utf8'),
      refused.stdout,
      refused.stderr,
    ]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(`${env.PROPDATA_API_KEY}:${secret}`).toString('base64'));
    }
  });
});

describe('bad input', () => {
  const cases: [string, number, RegExp][] = [
    ['empty.csv', 1, /input is empty: expected a header row/],
    ['duplicate-header.csv', 1, /the header names column "zip" twice/],
    ['unclosed-quote.csv', 1, /line 3: a quoted field opened in this record is never closed/],
    ['header-only.csv', 0, /no records/],
    ['ragged-rows.csv', 3, /2 invalid_input/],
    // Not UTF-8: read as Windows-1252 (what Excel saves), said once; every row goes through.
    ['latin1-bytes.csv', 0, /latin1-bytes\.csv is not UTF-8: reading it as windows-1252/],
    ['bad-line-and-blanks.jsonl', 3, /2 invalid_input/],
  ];
  it.each(cases)('%s: a clear message or invalid_input records, exit %i, no stack trace', async (name, code, message) => {
    const env = await sandbox.start();
    const result = await runMain(['property', 'value', '-i', join(FIXTURES, name), '-o', join(workdir(), 'out.csv')], { env });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('binary garbage is refused with a message; a 1 MB field goes through whole', async () => {
    const env = await sandbox.start();
    const dir = workdir();
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
    const refused = await runMain(['property', 'value', '-i', file(dir, 'garbage.csv', garbage)], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/input is not text/);
    const big = 'x'.repeat(1_000_000);
    const output = join(dir, 'out.csv');
    const result = await runMain(
      ['property', 'value', '-i', file(dir, 'big.csv', `address,zipcode,notes\n1 Main St,21201,${big}\n`), '-o', output],
      { env },
    );
    expect(result.code).toBe(0);
    expect(readCsv(output)[0]!.notes).toBe(big);
  });
});
