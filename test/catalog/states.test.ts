import { describe, expect, it } from 'vitest';
import { checkIdentifier, stateCode } from '../../src/catalog/index.js';

describe('stateCode', () => {
  it.each(['AE', 'AA', 'AP', 'FM', 'MH', 'PW', 'MP', 'GU', 'VI', 'AS'])('accepts the USPS code %s', (code) => {
    expect(stateCode(code)).toBe(code);
    expect(stateCode(code.toLowerCase())).toBe(code);
    expect(checkIdentifier({ name: 'state', description: '' }, code)).toBeUndefined();
  });

  it('reads D.C. and N.Y. as DC and NY', () => {
    expect(stateCode('D.C.')).toBe('DC');
    expect(stateCode('d.c.')).toBe('DC');
    expect(stateCode('N.Y.')).toBe('NY');
  });

  it('still refuses what is not a state', () => {
    expect(stateCode('ZZ')).toBeUndefined();
    expect(stateCode('D.Z.')).toBeUndefined();
  });
});
