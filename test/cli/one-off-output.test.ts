import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkFor, startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { runMain } from '../helpers/run-main.js';

let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve() {
  const body = JSON.stringify([chunkFor(['property/value'])]);
  server = await startScriptedServer(() => ({ status: 200, body }));
  return {
    PROPDATA_BASE_URL: server.url,
    PROPDATA_API_KEY: 'key-1',
    PROPDATA_API_SECRET: 'secret-1',
    PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-cli-')),
    PROPDATA_HOME: mkdtempSync(join(tmpdir(), 'propdata-home-')),
  };
}

const VALUE = ['property', 'value', '--address', '43 Valmonte Plaza', '--zipcode', '90274'];

describe('a one-off with --output or --format', () => {
  it('writes the record to --output as a batch of one writes it', async () => {
    const env = await serve();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-one-'));
    const one = await runMain([...VALUE, '--output', join(dir, 'one.csv')], { env });
    expect(one.code).toBe(0);
    expect(one.stdout).toBe('');
    expect(server!.requests[0]!.method).toBe('GET');
    writeFileSync(join(dir, 'in.csv'), 'address,zipcode\n43 Valmonte Plaza,90274\n');
    const batch = await runMain(
      ['property', 'value', '--input', join(dir, 'in.csv'), '--output', join(dir, 'batch.csv'), '--no-store', '--quiet'],
      {
        env,
      },
    );
    expect(batch.code).toBe(0);
    const written = readFileSync(join(dir, 'one.csv'), 'utf8');
    expect(written).toBe(readFileSync(join(dir, 'batch.csv'), 'utf8'));
    expect(written.split('\n')[0]).toMatch(/^address,zipcode,_row,_status,_error,address_info\./);
    expect(written.split('\n')[1]).toMatch(/^43 Valmonte Plaza,90274,1,ok,,/);
  });

  it('writes --format csv or jsonl to stdout instead of the JSON body', async () => {
    const env = await serve();
    const csv = await runMain([...VALUE, '--format', 'csv'], { env });
    expect(csv.code).toBe(0);
    expect(csv.stdout).toMatch(/^address,zipcode,_row,_status/);
    const jsonl = await runMain([...VALUE, '--format', 'jsonl'], { env });
    expect(jsonl.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(jsonl.stdout)).toMatchObject({ _row: 1, _status: 'ok' });
  });
});
