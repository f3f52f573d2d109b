import { describe, expect, it } from 'vitest';
import * as errors from '../../src/errors/index.js';
import * as library from '../../src/library/index.js';

describe("the package's exports", () => {
  it('include every error class, each a PropdataError, and no exit code', () => {
    const classes = Object.entries(errors).filter(([, value]) => typeof value === 'function');
    expect(classes.length).toBeGreaterThanOrEqual(20);
    for (const [name, value] of classes) {
      expect(library, name).toHaveProperty(name, value);
      expect(value === errors.PropdataError || value.prototype instanceof errors.PropdataError, name).toBe(true);
    }
    expect(library).not.toHaveProperty('EXIT');
    expect(new errors.AuthError()).not.toHaveProperty('exitCode');
    for (const name of [
      'BadRequestError',
      'NotFoundError',
      'RateLimitedError',
      'ServerError',
      'UnreadableAnswerError',
      'BadResponseError',
    ]) {
      expect((library as Record<string, unknown>)[name], name).toBeTypeOf('function');
    }
  });
});
