import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { interpretResponse } from '../../src/client/interpret-response.js';
import type { RawResponse } from '../../src/client/service-client.js';
import {
  BudgetReachedError,
  AuthError,
  BadRequestError,
  CreditExhaustedError,
  ForbiddenError,
  NotFoundError,
  PropdataError,
  RateLimitedError,
  ServerError,
  ServiceError,
  UnreadableAnswerError,
} from '../../src/errors/index.js';

const response = (status: number, body = ''): RawResponse => ({ status, headers: {}, body, elapsedMs: 1, redact: (text) => text });

function thrown(status: number, body = ''): unknown {
  try {
    interpretResponse(response(status, body), 'v2/property/value');
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('interpretResponse', () => {
  it('maps a 403 to a fatal ForbiddenError carrying the service message, exit 1', () => {
    const error = thrown(403, '{"message":"Forbidden: IP not allowed"}');
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).status).toBe(403);
    expect((error as ForbiddenError).code).toBe('E_FORBIDDEN');
    expect(exitCodeFor(error)).toBe(1);
    expect((error as ForbiddenError).serviceMessage).toBe('Forbidden: IP not allowed');
    expect((error as Error).message).toContain('Forbidden: IP not allowed');
    expect(thrown(403)).toBeInstanceOf(ForbiddenError);
  });

  it("reads a gateway's 402 naming a budget as a budget reached (exit 4), not as credit exhausted", () => {
    const message = 'key "intern" would pass its budget of 1.00 USD this month (1.00 USD spent or held at list price)';
    let error: unknown;
    try {
      interpretResponse(
        { ...response(402, JSON.stringify({ code: 402, message })), headers: { 'x-propdata-budget': 'key' } },
        'v2/property/value',
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BudgetReachedError);
    expect((error as Error).message).toBe(`the gateway refused the request: ${message}`);
    expect(exitCodeFor(error)).toBe(4);
    expect(thrown(402, JSON.stringify({ code: 402, message }))).toBeInstanceOf(CreditExhaustedError);
  });

  it('leaves every other status where it was', () => {
    expect(thrown(400, '{"message":"bad"}')).toBeInstanceOf(BadRequestError);
    expect(thrown(401)).toBeInstanceOf(AuthError);
    expect(thrown(402)).toBeInstanceOf(CreditExhaustedError);
    expect(thrown(403, '{"message":"upgrade your plan to use this component"}')).toBeInstanceOf(CreditExhaustedError);
    expect(thrown(404)).toBeInstanceOf(NotFoundError);
    expect(thrown(405, '{"message":"use GET or POST"}')).toBeInstanceOf(BadRequestError);
    expect(thrown(422, '{"message":"bad"}')).toBeInstanceOf(BadRequestError);
    expect(thrown(429, '{"message":"slow down"}')).toBeInstanceOf(RateLimitedError);
    expect(thrown(500)).toBeInstanceOf(ServerError);
    expect(thrown(503, '<html>down</html>')).toBeInstanceOf(ServerError);
    expect(thrown(500)).toBeInstanceOf(PropdataError);
  });

  it('reads a success without chunks (not JSON, an HTML page, empty, null, a bare 204) as unreadable, naming what came', () => {
    for (const [status, body, said] of [
      [200, '[{"a":', 'a body that is not JSON'],
      [200, '<html>oops</html>', 'an HTML page, not JSON'],
      [200, '  ', 'an empty body'],
      [200, 'null', 'JSON null, not an array of chunks'],
      [200, '"ok"', 'a JSON string, not an array of chunks'],
      [204, '', 'a success status other than 200 carries no chunks'],
    ] as const) {
      const error = thrown(status, body);
      expect(error).toBeInstanceOf(UnreadableAnswerError);
      expect((error as UnreadableAnswerError).code).toBe('E_UNREADABLE_ANSWER');
      expect((error as Error).message).toBe(`unreadable answer to v2/property/value (HTTP ${status}): ${said}; it may have been charged`);
    }
    expect(interpretResponse(response(200, '{"property/value":{"api_code":0}}'), 'v2/property/value')).toHaveLength(1);
  });

  it("carries the answer's status, headers and request id on every error, an echoed credential scrubbed from them", () => {
    const answer = (status: number, headers: Record<string, string>): RawResponse => ({
      ...response(status),
      headers,
      redact: (text) => text.replaceAll('KEY123', '****'),
    });
    const headers = { 'x-request-id': 'req-7f3a', 'x-ratelimit-limit': '250', 'x-echo': 'Basic KEY123' };
    for (const status of [400, 401, 402, 403, 404, 429, 500, 204]) {
      let error: unknown;
      try {
        interpretResponse(answer(status, headers), 'v2/property/value');
      } catch (caught) {
        error = caught;
      }
      expect(error, `HTTP ${status}`).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({
        status,
        requestId: 'req-7f3a',
        headers: { 'x-request-id': 'req-7f3a', 'x-ratelimit-limit': '250', 'x-echo': 'Basic ****' },
      });
    }
    // A service that gives no request id: none is made up.
    expect(thrown(401)).toMatchObject({ status: 401, headers: {}, requestId: undefined });
  });
});
