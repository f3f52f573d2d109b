import { describe, expect, it } from 'vitest';
import { chunkFor, scriptedServerPerTest, type Script } from '../helpers/scripted-server.js';
import { runMain } from '../helpers/run-main.js';

const SECRET = 'sup3r-s3cret-value';
const scripted = scriptedServerPerTest(SECRET);
const serve = (script: Script) => scripted.serve(script);

const VALUE = ['property', 'value', '--address', '43 Valmonte Plaza', '--zipcode', '90274'];
const ok = (sections = ['property/value']) => ({ status: 200, body: JSON.stringify([chunkFor(sections)]) });

describe('one-off queries', () => {
  it('sends a GET with the identifiers in the query string, Basic auth and a User-Agent, and prints the body exactly', async () => {
    const body = JSON.stringify([chunkFor(['property/value'])]);
    const env = await serve(() => ({ status: 200, body }));
    const result = await runMain(VALUE, { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${body}\n`);
    const request = scripted.current.requests[0]!;
    expect(request.method).toBe('GET');
    expect(request.url).toBe('/v2/property/value?address=43+Valmonte+Plaza&zipcode=90274');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`key-1:${SECRET}`).toString('base64')}`);
    expect(request.headers['user-agent']).toMatch(/^propdata\/\d+\.\d+\.\d+$/);
  });

  it('takes endpoint parameters as their own flags and through --param', async () => {
    const env = await serve(() => ok(['property/value_details_adjusted']));
    const result = await runMain(
      ['property', 'value-details-adjusted', '--slug', 'abc', '--add-beds', '1', '--add-baths', '1.5', '--param', 'extra=x'],
      { env },
    );
    expect(result.code).toBe(0);
    const url = new URL(scripted.current.requests[0]!.url, 'http://x');
    expect(url.pathname).toBe('/v2/property/value_details_adjusted');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ slug: 'abc', add_beds: '1', add_baths: '1.5', extra: 'x' });
  });

  it('refuses an item the spec would reject before sending anything (exit 2)', async () => {
    const env = await serve(() => ok());
    const result = await runMain(['property', 'value-details-adjusted', '--slug', 'abc', '--add-pools', '2'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--add-pools/);
    expect(scripted.current.requests).toHaveLength(0);
    const blockId = await runMain(['block', 'crime', '--block-id', '123'], { env });
    expect(blockId.code).toBe(2);
    expect(blockId.stderr).toMatch(/15 digits/);
  });

  it('sends mget components in the query string', async () => {
    const env = await serve(() => ok(['property/value', 'property/school']));
    const result = await runMain(['mget', 'property/value,school', '--slug', 'abc'], { env });
    expect(result.code).toBe(0);
    expect(scripted.current.requests[0]!.url).toBe('/v2/property/component_mget?slug=abc&components=property%2Fvalue%2Cproperty%2Fschool');
  });

  it('sends an item with --meta as a one-item POST, its JSON body whole (a non-ASCII address counted in bytes)', async () => {
    const env = await serve(() => ({ status: 200, body: JSON.stringify([chunkFor(['property/value'], 'row-7')]) }));
    const result = await runMain(['property', 'value', '--address', '12 Über Straße', '--zipcode', '90274', '--meta', 'row-7'], { env });
    expect(result.code).toBe(0);
    const request = scripted.current.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v2/property/value');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual([{ address: '12 Über Straße', zipcode: '90274', meta: 'row-7' }]);
  });

  it('renders the answer for a person on a terminal: the address, key figures, a 204 section as no content', async () => {
    const chunk = {
      ...chunkFor(['property/value']),
      'property/on_market': { api_code: 204, api_code_description: 'no content', result: null },
      'property/sales_history': { api_code: 0, api_code_description: 'ok', result: [{ amount: 1 }, { amount: 2 }] },
      'property/school': {
        api_code: 0,
        api_code_description: 'ok',
        result: { school: { high: [{ name: 'Palos Verdes High' }, { name: 'Peninsula High' }] } },
      },
    };
    const body = JSON.stringify([chunk]);
    const env = await serve(() => ({ status: 200, body }));
    const shown = await runMain(['mget', 'property/value,property/on_market,property/sales_history,property/school', '--slug', 'abc'], {
      env,
      tty: true,
    });
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        '43 Valmonte Plz, Palos Verdes Estates, CA 90274',
        'property/value',
        '  value.price_mean  1',
        'property/on_market  no content',
        '  result  2 records',
        '  school.high  Palos Verdes High; Peninsula High',
      ]),
    );
    const json = await runMain(['mget', 'property/value,property/on_market', '--slug', 'abc', '--json'], { env, tty: true });
    expect(json.stdout).toBe(`${body}\n`);
  });

  it('answers on a terminal that reports no width (a bare pty), where a spinner would never stop', async () => {
    const env = await serve(() => ok());
    const shown = await runMain(VALUE, { env, tty: true, columns: 0 });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^43 Valmonte Plz/);
  });

  it('says on a terminal when the address did not resolve', async () => {
    const env = await serve(() => ({
      status: 200,
      body: JSON.stringify([
        { address_info: { status: { match: false, errors: ['no such street'] } }, 'property/value': { api_code: 204, result: null } },
      ]),
    }));
    const shown = await runMain(VALUE, { env, tty: true });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^address not resolved: no such street\n/);
  });

  it('reaches paths the catalog does not describe through call', async () => {
    const env = await serve(() => ({ status: 200, body: '[{"zip/details":{"api_code":0}}]' }));
    const result = await runMain(['call', 'v2/zip/details', '--zipcode', '90274', '--param', 'months=12'], { env });
    expect(result.code).toBe(0);
    expect(scripted.current.requests[0]!.url).toBe('/v2/zip/details?months=12&zipcode=90274');
  });
});

describe('one-off failures: one line, a documented exit code, never the secret', () => {
  const cases: { name: string; script: Script; code: number; message: RegExp }[] = [
    {
      name: '400 gives the service explanation',
      script: () => ({ status: 400, body: '{"message":"zipcode must be 5 digits"}' }),
      code: 1,
      message: /rejected the request: zipcode must be 5 digits/,
    },
    { name: '401', script: () => ({ status: 401 }), code: 1, message: /authentication failed.*key and secret.*test keys/ },
    {
      name: '402 credit exhausted',
      script: () => ({ status: 402, body: '{"message":"Insufficient credit"}' }),
      code: 1,
      message: /credit exhausted: add payment information for a pay-as-you-go plan/,
    },
    {
      name: 'a 4xx asking for payment',
      script: () => ({ status: 403, body: '{"message":"Please add payment information"}' }),
      code: 1,
      message: /credit exhausted/,
    },
    {
      name: '429 with a reset beyond the wait cap says when to retry',
      script: () => ({
        status: 429,
        body: '{"message":"rate limit"}',
        headers: {
          'x-ratelimit-period': '60',
          'x-ratelimit-limit': '250',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
        },
      }),
      code: 5,
      message: /the rate limit resets at \d{4}-\d\d-\d\dT[\d:.]+Z, later than --max-wait \(5 s\) allows/,
    },
    {
      name: '5xx after retries',
      script: () => ({ status: 503, body: '<html>down</html>' }),
      code: 1,
      message: /the service failed \(HTTP 503\)/,
    },
  ];

  for (const { name, script, code, message } of cases) {
    it(name, async () => {
      const env = await serve(script);
      const result = await runMain([...VALUE, '--max-retries', '1', '--max-wait', '5'], { env });
      expect(result.code).toBe(code);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).not.toContain(SECRET);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  }

  it('retries 5xx and dropped connections, then succeeds', async () => {
    const env = await serve((_, i) => (i === 0 ? { status: 502, body: '<html/>' } : i === 1 ? { status: 0, destroy: true } : ok()));
    const result = await runMain(VALUE, { env });
    expect(result.code).toBe(0);
    expect(scripted.current.requests).toHaveLength(3);
  });

  it('waits out a 429 whose reset is near, saying how long', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 1);
    const env = await serve((_, i) =>
      i === 0
        ? {
            status: 429,
            body: '{"message":"slow down"}',
            headers: { 'x-ratelimit-period': '1', 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
          }
        : ok(),
    );
    const result = await runMain(VALUE, { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/rate limit reached \(HTTP 429\); waiting \d+ s/);
    expect(scripted.current.requests[1]!.at).toBeGreaterThanOrEqual(Number(reset) * 1000);
  });

  it('fails on an unreachable service with the cause', async () => {
    const env = await serve(() => ok());
    const url = scripted.current.url;
    await scripted.stop();
    const result = await runMain([...VALUE, '--max-retries', '0'], { env: { ...env, PROPDATA_BASE_URL: url } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not reach the service: connection refused/);
  });

  it('suggests the nearest names for an unknown endpoint or level (exit 2)', async () => {
    const target = await runMain(['property', 'valeu']);
    expect(target.code).toBe(2);
    expect(target.stderr).toMatch(/value/);
    const level = await runMain(['call', 'v2/proprety/value']);
    expect(level.code).toBe(2);
    expect(level.stderr).toMatch(/did you mean property/);
  });

  it('shows the secret in no --verbose log line', async () => {
    const env = await serve(() => ok());
    const result = await runMain([...VALUE, '--verbose'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/GET \/v2\/property\/value items=1 -> 200/);
    expect(result.stderr).not.toContain(SECRET);
    expect(result.stderr.toLowerCase()).not.toContain('authorization');
  });
});
