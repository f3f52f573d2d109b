import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a 403 from the service', () => {
  it('stops a batch like a 401: exit 1, the service message on stderr, no halving, no invalid_input rows', async () => {
    server = await startScriptedServer(() => ({ status: 403, body: '{"message":"Forbidden: IP not allowed"}' }));
    const dir = mkdtempSync(join(tmpdir(), 'propdata-403-'));
    const input = join(dir, 'in.csv');
    const output = join(dir, 'out.csv');
    writeFileSync(input, `address,zipcode\n${Array.from({ length: 8 }, (_, i) => `${i + 1} Main St,21201`).join('\n')}\n`);
    const env = { PROPDATA_BASE_URL: server.url, PROPDATA_API_KEY: 'k', PROPDATA_API_SECRET: 's3cret' };
    const result = await runMain(['property', 'value', '-i', input, '-o', output, '--batch-size', '8'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Forbidden: IP not allowed');
    expect(result.stderr).toMatch(/HTTP 403/);
    expect(server.requests).toHaveLength(1);
    expect(readFileSync(output, 'utf8')).not.toContain('invalid_input');
  });
});
