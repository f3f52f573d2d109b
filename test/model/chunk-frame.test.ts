import { describe, expect, it } from 'vitest';
import { joinChunk, keptParts, type Frame } from '../../src/model/chunk-frame.js';
import { propertyChunk } from '../store/helpers/chunks.js';

const ENDPOINTS = ['property/value', 'property/school'];

describe('chunk frames', () => {
  it('rebuilds a chunk byte for byte, the row’s own meta where a frame marks it', () => {
    const chunk = propertyChunk('405 Dyer Ave', ENDPOINTS, { meta: 'crm-1' });
    const frame: Frame = [['address_info', chunk.address_info], null, ['meta']];
    const sections = ENDPOINTS.map((name) => chunk[name]);
    expect(JSON.stringify(joinChunk(frame, ENDPOINTS, sections, 'crm-1'))).toBe(JSON.stringify(chunk));
    expect(JSON.stringify(joinChunk(frame, ENDPOINTS, sections, 'crm-2'))).toBe(JSON.stringify({ ...chunk, meta: 'crm-2' }));
    const { meta: _meta, ...withoutMeta } = chunk;
    expect(JSON.stringify(joinChunk(frame, ENDPOINTS, sections, undefined))).toBe(JSON.stringify(withoutMeta));
  });

  it('puts meta last when the answer stored had none, as deduplication does', () => {
    const { frame, sections } = keptParts(propertyChunk('405 Dyer Ave', ENDPOINTS), ENDPOINTS);
    expect(Object.keys(joinChunk(frame, ENDPOINTS, sections, 'm'))).toEqual(['address_info', ...ENDPOINTS, 'meta']);
  });

  it('rebuilds a subset of the sections in place', () => {
    const { frame, sections } = keptParts(propertyChunk('405 Dyer Ave', ENDPOINTS), ENDPOINTS);
    const rebuilt = joinChunk(frame, ['property/value'], [sections[0]], undefined);
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(propertyChunk('405 Dyer Ave', ['property/value'])));
  });

  it('keeps a member named __proto__ as data', () => {
    const chunk = JSON.parse('{"__proto__":{"a":1},"property/value":{"api_code":0,"result":1}}') as Record<string, unknown>;
    const { frame, sections } = keptParts(chunk, ['property/value']);
    expect(JSON.stringify(joinChunk(frame, ['property/value'], sections, undefined))).toBe(JSON.stringify(chunk));
  });

  it('keeps only answers: an error section, none or a missing one is not kept', () => {
    const chunk = propertyChunk('405 Dyer Ave', ENDPOINTS);
    expect(keptParts({ ...chunk, 'property/value': { api_code: 500, result: null } }, ENDPOINTS).sections).toEqual([
      undefined,
      chunk['property/school'],
    ]);
    expect(keptParts({ ...chunk, 'property/value': null }, ENDPOINTS).sections[0]).toBeUndefined();
    expect(keptParts(propertyChunk('405 Dyer Ave', ['property/value']), ENDPOINTS).sections[1]).toBeUndefined();
  });
});
