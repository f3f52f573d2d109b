import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkFor, scriptedServerPerTest, type Script } from '../helpers/scripted-server.js';
import { runMain } from '../helpers/run-main.js';

/** Issue 17, "Requests": what reaches the service at the edges. */
const scripted = scriptedServerPerTest();
const serve = (script: Script) => scripted.serve(script);

const ADDRESS = ['--address', '43 Valmonte Plaza', '--zipcode', '90274'];
const urlOf = (index: number) => new URL(scripted.current.requests[index]!.url, 'http://x');

describe('mget', () => {
  it('refuses an endpoint named twice before sending', async () => {
    const env = await serve(() => ({ status: 200, body: JSON.stringify([chunkFor(['property/value'])]) }));
    const result = await runMain(['mget', 'property/value,property/value', ...ADDRESS], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/property\/value is named twice/);
    expect(scripted.current.requests).toHaveLength(0);
  });

  it('refuses a parameter flag that none of the named components takes', async () => {
    const env = await serve(() => ({ status: 200, body: JSON.stringify([chunkFor(['property/value', 'property/school'])]) }));
    const result = await runMain(['mget', 'property/value,property/school', '--add-beds', '1', ...ADDRESS], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--add-beds is a parameter of property\/value_details_adjusted/);
    expect(scripted.current.requests).toHaveLength(0);
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
    expect(scripted.current.requests[0]!.url).toBe('/v2/zip/details?zipcode=90274');
  });

  it('propdata msa hpi-ts sends GET /v2/msa/hpi_ts with the msa', async () => {
    const env = await serve(() => ({
      status: 200,
      body: JSON.stringify([{ msa_info: { msa: '31080' }, 'msa/hpi_ts': { api_code: 0, result: {} } }]),
    }));
    const result = await runMain(['msa', 'hpi-ts', '--msa', '31080'], { env });
    expect(result.code).toBe(0);
    expect(scripted.current.requests[0]!.url).toBe('/v2/msa/hpi_ts?msa=31080');
  });

  it('the endpoints footer sends only the levels without a command to call', async () => {
    const result = await runMain(['endpoints']);
    expect(result.code).toBe(0);
    const footer = result.stdout.split('\n').find((line) => line.startsWith('Other paths'))!;
    expect(footer).not.toMatch(/\bzip\b|\bmsa\b/);
    expect(footer).toMatch(/blockgroup/);
  });
});

function csv(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'propdata-edges-in-')), 'in.csv');
  writeFileSync(path, text);
  return path;
}

describe('call', () => {
  it('sends every identifier flag to a reports path, as a GET', async () => {
    const env = await serve(() => ({ status: 200, body: JSON.stringify([{ 'reports/value_report': { api_code: 0, result: {} } }]) }));
    const result = await runMain(['call', 'v2/reports/value_report', '--address', '1 Main St', '--zipcode', '21204'], { env });
    expect(result.code).toBe(0);
    expect(scripted.current.requests[0]!.method).toBe('GET');
    expect(Object.fromEntries(urlOf(0).searchParams)).toEqual({ address: '1 Main St', zipcode: '21204' });
  });

  it('refuses a reports call with no identifiers at all', async () => {
    const env = await serve(() => ({ status: 200, body: '[]' }));
    const result = await runMain(['call', 'v2/reports/value_report'], { env });
    expect(result.code).toBe(2);
    expect(scripted.current.requests).toHaveLength(0);
  });

  it('sends a reports batch as one GET per row, never a POST', async () => {
    const env = await serve(() => ({ status: 200, body: JSON.stringify([{ 'reports/value_report': { api_code: 0, result: {} } }]) }));
    const input = csv('address,zipcode\n1 Main St,21204\n2 Oak Ave,90274\n');
    const result = await runMain(['call', 'v2/reports/value_report', '--input', input, '--format', 'jsonl'], { env });
    expect(result.code).toBe(0);
    expect(scripted.current.requests.map((request) => request.method)).toEqual(['GET', 'GET']);
    expect(Object.fromEntries(urlOf(0).searchParams)).toEqual({ address: '1 Main St', zipcode: '21204' });
    expect(Object.fromEntries(urlOf(1).searchParams)).toEqual({ address: '2 Oak Ave', zipcode: '90274' });
  });

  it('sends a column that is not an identifier as a parameter, unless --map empties it', async () => {
    const reply = () => ({
      status: 200,
      body: JSON.stringify([{ zipcode_info: { zipcode: '90274' }, 'zip/details': { api_code: 0, result: {} } }]),
    });
    const env = await serve(reply);
    const input = csv('zipcode,months,Owner Name,_row\n90274,12,Ann,1\n');
    expect((await runMain(['call', 'v2/zip/details', '--input', input], { env })).code).toBe(0);
    expect(JSON.parse(scripted.current.requests[0]!.body)).toEqual([{ zipcode: '90274', months: '12' }]);
    expect((await runMain(['call', 'v2/zip/details', '--input', input, '--map', 'months='], { env })).code).toBe(0);
    expect(JSON.parse(scripted.current.requests[1]!.body)).toEqual([{ zipcode: '90274' }]);
  });

  it('reads --param components of component_mget as mget does: query string only, components counted, sections read', async () => {
    const sections = ['property/value', 'property/zip_details', 'property/zip_hcri'];
    const env = await serve((request) => {
      const items = JSON.parse(request.body) as unknown[];
      return { status: 200, body: JSON.stringify(items.map(() => chunkFor(sections))) };
    });
    const input = csv('address,zipcode\n1 Main St,21204\n2 Oak Ave,90274\n3 Elm St,02134\n');
    const report = join(mkdtempSync(join(tmpdir(), 'propdata-edges-report-')), 'report.json');
    const result = await runMain(
      [
        'call',
        'v2/property/component_mget',
        '--param',
        `components=${sections.join(',')}`,
        '--input',
        input,
        '--format',
        'jsonl',
        '--report',
        report,
      ],
      { env },
    );
    expect(result.code).toBe(0);
    const request = scripted.current.requests[0]!;
    expect(new URL(request.url, 'http://x').searchParams.get('components')).toBe(sections.join(','));
    for (const item of JSON.parse(request.body) as Record<string, unknown>[]) expect(item).not.toHaveProperty('components');
    const statuses = result.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { _status: string })._status);
    expect(statuses).toEqual(['ok', 'ok', 'ok']);
    expect(result.stderr).toMatch(/\b9 components\b/);
  });
});

describe('mget with components from another level', () => {
  it('sends property/zip_details beside property/value in one component_mget', async () => {
    const sections = ['property/value', 'property/zip_details', 'property/zip_hpi_forecast'];
    const env = await serve(() => ({ status: 200, body: JSON.stringify([chunkFor(sections)]) }));
    const result = await runMain(['mget', sections.join(','), ...ADDRESS], { env });
    expect(result.code).toBe(0);
    expect(urlOf(0).pathname).toBe('/v2/property/component_mget');
    expect(urlOf(0).searchParams.get('components')).toBe(sections.join(','));
  });
});
