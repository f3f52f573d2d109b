import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { scriptedServerPerTest, type RecordedRequest } from '../helpers/scripted-server.js';

const KEY = 'acct-key-0042';
// A quote and a backslash to escape, and a token with a "/" for PHP to write as "\/".
const SECRET = 'S3cr3t"value\\x??';
const PAIR = `${KEY}:${SECRET}`;
const TOKEN = Buffer.from(PAIR).toString('base64');
const LEAKS = [SECRET, TOKEN, PAIR, JSON.stringify(SECRET).slice(1, -1), TOKEN.replaceAll('/', '\\/'), KEY];

const server = scriptedServerPerTest();

function expectNoCredentials(text: string): void {
  for (const leak of LEAKS) expect(text).not.toContain(leak);
}

/**
 * What a careless server does with a 200: echoes the request's Authorization header, the pair it
 * decodes from it and the secret alone into each chunk (a field every output writes, a list, a
 * section), writing JSON as PHP does (`\/`).
 */
function echoingAnswer(request: RecordedRequest) {
  const authorization = request.headers.authorization ?? '';
  const decoded = Buffer.from(authorization.replace(/^Basic /, ''), 'base64').toString();
  const items = request.method === 'POST' ? (JSON.parse(request.body) as Record<string, unknown>[]) : [{}];
  const chunks = items.map(() => ({
    address_info: {
      address_full: `echo: ${authorization}`,
      status: { match: true, details: [`decoded ${decoded}`], changes: [], errors: [] },
    },
    'property/value': { api_code: 0, api_code_description: 'ok', result: { value: { price_mean: 1, note: decoded.split(':')[1] } } },
  }));
  return { status: 200, body: JSON.stringify(chunks).replaceAll('/', '\\/') };
}

async function echoingServer(): Promise<Record<string, string>> {
  const env = await server.serve(echoingAnswer);
  return { ...env, PROPDATA_API_KEY: KEY, PROPDATA_API_SECRET: SECRET };
}

/** Every stored frame and section (kept as JSON text). */
function storeText(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const frames = db.prepare<[], { frame: string }>('SELECT frame FROM items').all();
    const bodies = db.prepare<[], { body: string }>('SELECT body FROM sections').all();
    expect(frames.length).toBeGreaterThan(0);
    return [...frames.map((row) => row.frame), ...bodies.map((row) => row.body)].join('\n');
  } finally {
    db.close();
  }
}

describe('a server that echoes the credentials in a 200 answer', () => {
  it('gets them redacted from JSON, JSONL and CSV output, the stderr of a --verbose run, the store and a --max-age reuse', async () => {
    const env = await echoingServer();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-answer-echo-'));
    const input = join(dir, 'in.csv');
    writeFileSync(input, 'address,zipcode\n1 Main St,21201\n2 Main St,21201\n');
    const store = join(dir, 'store.db');
    for (const format of ['jsonl', 'json', 'csv']) {
      const output = join(dir, `out.${format}`);
      const result = await runMain(['property', 'value', '-i', input, '-o', output, '--store', store, '--verbose'], { env });
      expect(result.code).toBe(0);
      const written = readFileSync(output, 'utf8');
      expect(written).toContain('echo: Basic ****');
      expectNoCredentials(written);
      expectNoCredentials(result.stderr);
    }
    const kept = storeText(store);
    expect(kept).toContain('echo: Basic ****');
    expectNoCredentials(kept);
    expectNoCredentials(readFileSync(store, 'latin1'));

    const sent = server.current.requests.length;
    const reused = join(dir, 'reused.jsonl');
    const again = await runMain(['property', 'value', '-i', input, '-o', reused, '--store', store, '--max-age', '30d'], { env });
    expect(again.code).toBe(0);
    expect(server.current.requests).toHaveLength(sent);
    expect(readFileSync(reused, 'utf8')).toContain('echo: Basic ****');
    expectNoCredentials(readFileSync(reused, 'utf8'));
  });

  it('gets them redacted from a one-off: the JSON it prints, its terminal view, its --output and the pending store record', async () => {
    const env = await echoingServer();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-answer-echo-'));
    const store = join(dir, 'store.db');
    const oneOff = ['property', 'value', '--address', '1 Main St', '--zipcode', '21201', '--store', store];

    const printed = await runMain([...oneOff, '--json'], { env });
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toMatchObject([{ address_info: { address_full: 'echo: Basic ****' } }]);
    expectNoCredentials(printed.stdout);
    const pending = readdirSync(`${store}.pending`).map((name) => readFileSync(join(`${store}.pending`, name), 'utf8'));
    expect(pending.join('\n')).toContain('echo: Basic ****');
    expectNoCredentials(pending.join('\n'));

    const viewed = await runMain(oneOff, { env, tty: true });
    expect(viewed.code).toBe(0);
    expect(viewed.stdout).toContain('Basic ****');
    expectNoCredentials(viewed.stdout + viewed.stderr);

    const output = join(dir, 'one.csv');
    const written = await runMain([...oneOff, '--output', output], { env });
    expect(written.code).toBe(0);
    expect(readFileSync(output, 'utf8')).toContain('echo: Basic ****');
    expectNoCredentials(readFileSync(output, 'utf8'));

    // With --max-age the store opens (taking in the pending records) and answers without a request.
    const sent = server.current.requests.length;
    const reused = await runMain([...oneOff, '--max-age', '1d', '--json'], { env });
    expect(reused.code).toBe(0);
    expect(server.current.requests).toHaveLength(sent);
    expect(reused.stdout).toContain('echo: Basic ****');
    expectNoCredentials(reused.stdout);
    expectNoCredentials(storeText(store));
  });
});
