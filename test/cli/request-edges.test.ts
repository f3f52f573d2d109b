import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkFor, startScriptedServer, type Script, type ScriptedServer } from '../helpers/scripted-server.js';
import { runMain } from '../helpers/run-main.js';

/** Issue 17, "Requests": what reaches the service at the edges. */
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: Script) {
  server = await startScriptedServer(script);
  return {
    PROPDATA_BASE_URL: server.url,
    PROPDATA_API_KEY: 'key-1',
    PROPDATA_API_SECRET: 'secret-1',
    PROPDATA_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'propdata-edges-')),
  };
}

const ADDRESS = ['--address', '43 Valmonte Plaza', '--zipcode', '90274'];
const urlOf = (index: number) => new URL(server!.requests[index]!.url, 'http://x');

describe('mget', () => {
  it('refuses an endpoint named twice before sending', async () => {
    const env = await serve(() => ({ status: 200, body: JSON.stringify([chunkFor(['property/value'])]) }));
    const result = await runMain(['mget', 'property/value,property/value', ...ADDRESS], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/property\/value is named twice/);
    expect(server!.requests).toHaveLength(0);
  });

  it('refuses a parameter flag that none of the named components takes', async () => {
    const env = await serve(() => ({ status: 200, body: JSON.stringify([chunkFor(['property/value', 'property/school'])]) }));
    const result = await runMain(['mget', 'property/value,property/school', '--add-beds', '1', ...ADDRESS], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--add-beds is a parameter of property\/value_details_adjusted/);
    expect(server!.requests).toHaveLength(0);
  });

  it('sends a parameter flag a named component takes', async () => {
    const sections = ['property/value', 'property/value_details_adjusted'];
    const env = await serve(() => ({ status: 200, body: JSON.stringify([chunkFor(sections)]) }));
    const result = await runMain(['mget', sections.join(','), '--add-beds', '1', ...ADDRESS], { env });
    expect(result.code).toBe(0);
    expect(urlOf(0).searchParams.get('add_beds')).toBe('1');
  });
});

describe('zip and msa levels as commands', () => {
  it('propdata zip details sends GET /v2/zip/details with the zipcode', async () => {
    const env = await serve(() => ({
      status: 200,
      body: JSON.stringify([{ zipcode_info: { zipcode: '90274' }, 'zip/details': { api_code: 0, result: {} } }]),
    }));
    const result = await runMain(['zip', 'details', '--zipcode', '90274'], { env });
    expect(result.code).toBe(0);
    expect(server!.requests[0]!.url).toBe('/v2/zip/details?zipcode=90274');
  });

  it('propdata msa hpi-ts sends GET /v2/msa/hpi_ts with the msa', async () => {
    const env = await serve(() => ({
      status: 200,
      body: JSON.stringify([{ msa_info: { msa: '31080' }, 'msa/hpi_ts': { api_code: 0, result: {} } }]),
    }));
    const result = await runMain(['msa', 'hpi-ts', '--msa', '31080'], { env });
    expect(result.code).toBe(0);
    expect(server!.requests[0]!.url).toBe('/v2/msa/hpi_ts?msa=31080');
  });

  it('the endpoints footer sends only the levels without a command to call', async () => {
    const result = await runMain(['endpoints']);
    expect(result.code).toBe(0);
    const footer = result.stdout.split('\n').find((line) => line.startsWith('Other paths'))!;
    expect(footer).not.toMatch(/\bzip\b|\bmsa\b/);
    expect(footer).toMatch(/blockgroup/);
  });
});
