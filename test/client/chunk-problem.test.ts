import { describe, expect, it } from 'vitest';
import { chunkProblem } from '../../src/client/chunk-problem.js';
import { statusOf } from '../../src/model/status.js';
import type { Chunk } from '../../src/model/chunk.js';

/** `{"a":{"a":...{"a":1}}}` with `levels` objects, parsed as a server's body would be. */
function nested(levels: number): unknown {
  return JSON.parse(`${'{"a":'.repeat(levels - 1)}{"a":1}${'}'.repeat(levels - 1)}`);
}

describe('chunkProblem', () => {
  it('says why a chunk that is not an object cannot be used', () => {
    expect(chunkProblem(null)).toBe("the service's answer for this item is null, not an object");
    expect(chunkProblem(7)).toBe("the service's answer for this item is a number, not an object");
    expect(chunkProblem('x')).toBe("the service's answer for this item is a string, not an object");
    expect(chunkProblem([{ address_info: {} }])).toBe("the service's answer for this item is an array, not an object");
  });

  it('says when an item was left without a chunk of its own (no JSON value is undefined)', () => {
    expect(chunkProblem(undefined)).toBe("the service's answer holds no chunk that can be told to be this item's");
  });

  it('accepts any object up to the depth limit and refuses one deeper, however deep', () => {
    expect(chunkProblem({})).toBeUndefined();
    expect(chunkProblem({ address_info: null, 'property/value': 5, list: [[], [{}]] })).toBeUndefined();
    expect(chunkProblem(nested(64))).toBeUndefined();
    expect(chunkProblem(nested(65))).toMatch(/nested more than 64 levels deep/);
    expect(chunkProblem(JSON.parse(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`))).toMatch(/nested more than 64 levels/);
    expect(chunkProblem(nested(100_000))).toMatch(/nested more than 64 levels/);
  });
});

describe('statusOf', () => {
  it('gives a status for an object of any shape without throwing', () => {
    const shapes: unknown[] = [
      {},
      { address_info: null },
      { address_info: 5, 'property/value': null },
      { address_info: { status: null }, 'property/value': [] },
      { address_info: { status: 'x' }, 'property/value': 'ok' },
      JSON.parse('{"__proto__": {"api_code": 0}, "constructor": 1}'),
      Object.create(null),
    ];
    for (const chunk of shapes) expect(statusOf(chunk as Chunk, ['property/value'])).toBe('no_content');
    expect(statusOf({ 'property/value': { api_code: 0 } }, ['property/value'])).toBe('ok');
    expect(statusOf({ address_info: { status: { match: false } }, 'property/value': { api_code: 0 } }, ['property/value'])).toBe(
      'no_content',
    );
  });

  it('reads only members the chunk holds, not inherited ones', () => {
    expect(statusOf({}, ['constructor'])).toBe('no_content');
    expect(statusOf({ 'property/value': Object.create({ api_code: 0 }) }, ['property/value'])).toBe('no_content');
  });
});
