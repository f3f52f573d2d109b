import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Messages } from '../../src/cli/io.js';
import { runMain } from '../helpers/run-main.js';
import { chunkFor, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

const KEY = 'acct-key-0042';
const SECRET = 'S3cr3t"value\\x';
const TOKEN = Buffer.from(`${KEY}:${SECRET}`).toString('base64');
const LEAKS = [SECRET, TOKEN, `${KEY}:${SECRET}`, JSON.stringify(SECRET).slice(1, -1), KEY];

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function expectNoCredentials(text: string): void {
  for (const leak of LEAKS) expect(text).not.toContain(leak);
}

/** What a careless server does: puts the request's Authorization header, decoded too, into its error bodies. */
function echo(authorization: string | undefined): string {
  const decoded = Buffer.from((authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
  return `auth was ${authorization} (${decoded})`;
}

async function runBatch(rows: string[], extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-echo-'));
  const input = join(dir, 'in.csv');
  const output = join(dir, 'out.jsonl');
  const report = join(dir, 'report.json');
  writeFileSync(input, `address,zipcode\n${rows.join('\n')}\n`);
  const env = { PROPDATA_BASE_URL: server!.url, PROPDATA_API_KEY: KEY, PROPDATA_API_SECRET: SECRET };
  const argv = [
    'property',
    'value',
    '-i',
    input,
    '-o',
    output,
    '--report',
    report,
    '--batch-size',
    '1',
    '--concurrency',
    '1',
    '--max-retries',
    '0',
    ...extra,
  ];
  const result = await runMain(argv, { env });
  return { ...result, output: readFileSync(output, 'utf8'), report: readFileSync(report, 'utf8') };
}

describe('a server that echoes the credentials in its error bodies', () => {
  it('gets them redacted from the _error cells, stderr and the report (400, 500, a body without message)', async () => {
    server = await startScriptedServer((request) => {
      const [item] = JSON.parse(request.body) as { address: string }[];
      const said = echo(request.headers.authorization);
      if (item!.address.startsWith('Bad')) return { status: 400, body: JSON.stringify({ message: `bad item; ${said}` }) };
      if (item!.address.startsWith('Boom')) return { status: 500, body: JSON.stringify({ message: `internal error; ${said}` }) };
      if (item!.address.startsWith('Odd')) return { status: 422, body: JSON.stringify({ error: { detail: said } }) };
      return { status: 200, body: JSON.stringify([chunkFor(['property/value'])]) };
    });
    const result = await runBatch(['Bad St,21201', 'Boom St,21201', 'Odd St,21201', '1 Main St,21201'], ['--verbose']);
    expect(result.code).toBe(3);
    const records = result.output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { _status: string; _error: string | null });
    expect(records.map((record) => record._status)).toEqual(['invalid_input', 'error', 'invalid_input', 'ok']);
    expect(records[0]!._error).toContain('auth was Basic ****');
    expect(records[1]!._error).toContain('internal error; auth was Basic ****');
    expectNoCredentials(result.output);
    expectNoCredentials(result.stderr);
    expectNoCredentials(result.report);
  });

  it('gets them redacted from the fatal message on stderr and in the report', async () => {
    server = await startScriptedServer((request) => ({
      status: 403,
      body: JSON.stringify({ message: `Forbidden; ${echo(request.headers.authorization)}` }),
    }));
    const result = await runBatch(['1 Main St,21201']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Forbidden; auth was Basic ****');
    expect(JSON.parse(result.report).stoppedBecause).toContain('Basic ****');
    expectNoCredentials(result.stderr);
    expectNoCredentials(result.report);
  });

  it('gets them redacted from a one-off error', async () => {
    server = await startScriptedServer((request) => ({
      status: 400,
      body: JSON.stringify({ message: `bad; ${echo(request.headers.authorization)}` }),
    }));
    const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: KEY, PROPDATA_API_SECRET: SECRET };
    const result = await runMain(['property', 'value', '--slug', 'abc'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Basic ****');
    expectNoCredentials(result.stderr);
  });
});

describe('Messages', () => {
  function messages() {
    const stderr = new PassThrough();
    let text = '';
    stderr.on('data', (part: Buffer) => (text += part.toString()));
    const io = { stdin: Readable.from([]), stdout: new PassThrough(), stderr, env: {} };
    return { messages: new Messages(io), text: () => text };
  }

  it('redacts the secret, the key:secret pair and the Basic token once the credentials are added', () => {
    const { messages: out, text } = messages();
    out.addCredentials(KEY, SECRET);
    out.error(`a library said: Authorization: Basic ${TOKEN}; ${KEY}:${SECRET}; token ${TOKEN}; secret ${SECRET}`);
    expect(text()).toBe('a library said: Authorization: Basic ****; ****; token ****; secret ****\n');
  });

  it('leaves everything alone until credentials are added (the sandbox pair never is)', () => {
    const { messages: out, text } = messages();
    out.error('run it with --sandbox');
    expect(text()).toBe('run it with --sandbox\n');
  });
});
