import { describe, expect, it } from 'vitest';
import { joinChunk, splitChunk } from '../../src/model/chunk-frame.js';
import { propertyChunk } from '../store/helpers/chunks.js';

const ENDPOINTS = ['property/value', 'property/school'];

describe('chunk frames', () => {
  it('rebuilds a chunk byte for byte, the row’s own meta where the service put it', () => {
    const chunk = propertyChunk('405 Dyer Ave', ENDPOINTS, { meta: 'crm-1' });
    const { frame, sections } = splitChunk(chunk, ENDPOINTS)!;
    expect(JSON.stringify(frame)).not.toContain('crm-1');
    expect(JSON.stringify(joinChunk(frame, ENDPOINTS, sections, 'crm-1'))).toBe(JSON.stringify(chunk));
    expect(JSON.stringify(joinChunk(frame, ENDPOINTS, sections, 'crm-2'))).toBe(JSON.stringify({ ...chunk, meta: 'crm-2' }));
    const { meta: _meta, ...withoutMeta } = chunk;
    expect(JSON.stringify(joinChunk(frame, ENDPOINTS, sections, undefined))).toBe(JSON.stringify(withoutMeta));
  });

  it('puts meta last when the answer stored had none, as deduplication does', () => {
    const chunk = propertyChunk('405 Dyer Ave', ENDPOINTS);
    const { frame, sections } = splitChunk(chunk, ENDPOINTS)!;
    expect(Object.keys(joinChunk(frame, ENDPOINTS, sections, 'm'))).toEqual(['address_info', ...ENDPOINTS, 'meta']);
  });

  it('rebuilds a subset of the sections in place', () => {
    const { frame, sections } = splitChunk(propertyChunk('405 Dyer Ave', ENDPOINTS, { meta: 'x' }), ENDPOINTS)!;
    const rebuilt = joinChunk(frame, ['property/value'], [sections[0]], undefined);
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(propertyChunk('405 Dyer Ave', ['property/value'])));
  });

  it('keeps a member named __proto__ as data', () => {
    const chunk = JSON.parse('{"__proto__":{"a":1},"property/value":{"api_code":0,"result":1}}') as Record<string, unknown>;
    const { frame, sections } = splitChunk(chunk, ['property/value'])!;
    expect(JSON.stringify(joinChunk(frame, ['property/value'], sections, undefined))).toBe(JSON.stringify(chunk));
  });

  it('refuses what could not be rebuilt faithfully: errors, missing sections, another order', () => {
    const chunk = propertyChunk('405 Dyer Ave', ENDPOINTS);
    expect(splitChunk({ ...chunk, 'property/value': { api_code: 500, result: null } }, ENDPOINTS)).toBeUndefined();
    expect(splitChunk({ ...chunk, 'property/value': null }, ENDPOINTS)).toBeUndefined();
    expect(splitChunk(propertyChunk('405 Dyer Ave', ['property/value']), ENDPOINTS)).toBeUndefined();
    expect(splitChunk(chunk, [...ENDPOINTS].reverse())).toBeUndefined();
    const apart = {
      'property/value': chunk['property/value'],
      address_info: chunk.address_info,
      'property/school': chunk['property/school'],
    };
    expect(splitChunk(apart, ENDPOINTS)).toBeUndefined();
  });
});
