import { describe, expect, it } from 'vitest';
import { chunkAt } from '../../src/batching/response-text.js';

describe('a chunk taken again from the text of its answer', () => {
  it('is the chunk the whole answer parsed to, whatever its strings hold', () => {
    const chunks = [
      { address_info: { address: '12" pipe, [north]', status: { details: ['a "b", c'], changes: [] } }, 'property/value': { api_code: 0 } },
      null,
      7,
      { address_info: { address: 'back\\slash \\" {not} [a] ,bracket', unit: 'é ✓ \u2028' }, list: [[], [{}], [1, [2]]] },
      [{ nested: true }],
      'text, with a comma',
      JSON.parse('{"__proto__": {"a": 1}, "empty": {}}') as unknown,
    ];
    for (const body of [JSON.stringify(chunks), JSON.stringify(chunks, null, 2), ` \n${JSON.stringify(chunks, null, '\t')}\n`]) {
      const parsed = JSON.parse(body) as unknown[];
      parsed.forEach((chunk, i) => expect(JSON.stringify(chunkAt({ body }, i))).toBe(JSON.stringify(chunk)));
    }
  });

  it('reads a bare object as the one chunk', () => {
    const body = ' {"address_info": {"lat": 1}, "property/geocode": {"api_code": 0, "result": true}} ';
    expect(chunkAt({ body }, 0)).toEqual(JSON.parse(body));
  });
});
