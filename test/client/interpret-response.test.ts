import { describe, expect, it } from 'vitest';
import { interpretResponse } from '../../src/client/interpret-response.js';
import type { RawResponse } from '../../src/client/service-client.js';
import {
  AuthError,
  BadRequestError,
  CreditExhaustedError,
  ForbiddenError,
  NotFoundError,
  PropdataError,
  RateLimitedError,
  ServerError,
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
    expect((error as ForbiddenError).exitCode).toBe(1);
    expect((error as ForbiddenError).serviceMessage).toBe('Forbidden: IP not allowed');
    expect((error as Error).message).toContain('Forbidden: IP not allowed');
    expect(thrown(403)).toBeInstanceOf(ForbiddenError);
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
});
