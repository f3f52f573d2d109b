import { describe, expect, it } from 'vitest';
import { gatewayPerTest, basic } from '../gateway/helpers.js';

/**
 * The service's own Python client as released (hc-api-python 0.7.1, housecanary/output.py,
 * `ResponseOutputGenerator.process_response`), step for step: it reads `Content-Type` and compares
 * it with exactly "application/json". Any other value (a charset parameter included) hands the
 * raw response back: no `.properties()`, and an error body (`code` beside `message`) is not
 * raised. A JSON answer with a `code` other than 200 raises (UnauthorizedException for 403,
 * RateLimitException for 429, else RequestException); otherwise a Response wraps the body, whose
 * `.properties()` is one object per chunk of the list.
 */
type PythonOutcome =
  | { kind: 'raw response' }
  | { kind: 'raised'; exception: string; code: number; message: unknown }
  | { kind: 'Response'; properties: unknown[] };

async function processResponse(response: Response): Promise<PythonOutcome> {
  // requests' headers['content-type']: the header's value as sent (a KeyError when absent).
  const contentType = response.headers.get('content-type');
  if (contentType === null) throw new Error("KeyError: 'content-type'");
  if (contentType !== 'application/json') return { kind: 'raw response' };
  const json: unknown = await response.json();
  if (typeof json === 'object' && json !== null && 'code' in json && json.code !== 200) {
    const { code, message } = json as { code: number; message?: unknown };
    const exception = code === 403 ? 'UnauthorizedException' : code === 429 ? 'RateLimitException' : 'RequestException';
    return { kind: 'raised', exception, code, message: message ?? json };
  }
  return { kind: 'Response', properties: Array.isArray(json) ? json : [] };
}

/** `client.property.value([(address, zipcode)])`: one identifier, so a GET with it in the query string. */
const oneValue = (baseUrl: string, key: string, secret: string, endpoint = 'property/value') =>
  fetch(`${baseUrl}/v2/${endpoint}?address=43+Valmonte+Plaza&zipcode=90274`, {
    headers: { authorization: basic(key, secret), 'user-agent': 'hc-client-python/0.7.1 python-requests/2.34.2' },
  });

const start = gatewayPerTest();

describe("the service's own Python client (hc-api-python 0.7.1) reads the answers as the service's", () => {
  it('through the sandbox: a Response with .properties(), and an error raised from its code', async () => {
    const { sandbox } = await start();
    const answer = await oneValue(sandbox.url, sandbox.key, sandbox.secret);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const outcome = await processResponse(answer);
    expect(outcome.kind).toBe('Response');
    expect(outcome.kind === 'Response' && outcome.properties).toEqual([
      expect.objectContaining({ 'property/value': expect.objectContaining({ api_code: 0 }) }),
    ]);

    const refused = await fetch(`${sandbox.url}/v2/property/value?zipcode=90274`, {
      headers: { authorization: basic(sandbox.key, sandbox.secret) },
    });
    expect(refused.status).toBe(400);
    expect(await processResponse(refused)).toMatchObject({ kind: 'raised', exception: 'RequestException', code: 400 });
  });

  it('through the gateway: a Response with .properties(), and a 403 raised as UnauthorizedException', async () => {
    const { gateway, secrets } = await start({ keys: [{ name: 'alice' }, { name: 'etl', endpoints: ['property/rental_value'] }] });
    const answer = await oneValue(gateway.url, 'alice', secrets.alice!);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const outcome = await processResponse(answer);
    expect(outcome.kind === 'Response' && outcome.properties).toEqual([
      expect.objectContaining({ 'property/value': expect.objectContaining({ api_code: 0 }) }),
    ]);

    const forbidden = await oneValue(gateway.url, 'etl', secrets.etl!);
    expect(forbidden.status).toBe(403);
    expect(await processResponse(forbidden)).toMatchObject({ kind: 'raised', exception: 'UnauthorizedException', code: 403 });
  });
});
