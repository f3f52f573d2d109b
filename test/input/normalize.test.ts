import { describe, expect, it } from 'vitest';
import { LEVEL_SPECS } from '../../src/catalog/index.js';
import { cleanText, identifierNormalizer, metaText } from '../../src/input/normalize.js';

const identifier = (level: keyof typeof LEVEL_SPECS, name: string) =>
  identifierNormalizer(LEVEL_SPECS[level].identifiers.find((each) => each.name === name)!);

describe('normalize', () => {
  it('trims, collapses inner whitespace (tabs, non-breaking spaces) and drops empty text', () => {
    expect(cleanText('  405\u00a0 DYER\tAVE ')).toBe('405 DYER AVE');
    expect(cleanText('   ')).toBeUndefined();
    expect(cleanText('')).toBeUndefined();
    expect(cleanText(null)).toBeUndefined();
    expect(cleanText(21204)).toBe('21204');
  });

  it('turns ZIP+4 in every spelling into the 5-digit ZIP', () => {
    const zip = identifier('property', 'zipcode');
    expect(['02140-1234', '02140 1234', '021401234', ' 21136-1905 '].map(zip)).toEqual(['02140', '02140', '02140', '21136']);
  });

  it('takes the ZIP part of a ZIP+4 and leaves a ZIP that may have lost zeros short, for the row to decide', () => {
    const zip = identifier('zip', 'zipcode');
    expect([zip('2140'), zip(2140), zip('501'), zip('21401234'), zip('2140-1234'), zip('21136.0'), zip('021401234')]).toEqual([
      '2140',
      '2140',
      '501',
      '2140',
      '2140',
      '21136',
      '02140',
    ]);
  });

  it('leaves ZIPs it cannot repair as given, for validation to report', () => {
    const zip = identifier('property', 'zipcode');
    expect([zip('12'), zip('1234567'), zip('ABCDE')]).toEqual(['12', '1234567', 'ABCDE']);
  });

  it('pads census ids one digit short (state FIPS 01-09) but not MSA codes', () => {
    expect(identifier('block', 'block_id')('10730001001000')).toBe('010730001001000');
    expect(identifier('blockgroup', 'blockgroup_id')('10730001001')).toBe('010730001001');
    expect(identifier('block', 'block_id')('1073000100100')).toBe('1073000100100');
    expect(identifier('msa', 'msa')('1018')).toBe('1018');
  });

  it('converts full state names to the 2-letter code and keeps what it does not know', () => {
    const state = identifier('property', 'state');
    expect([state('maryland'), state(' New  York '), state('md'), state('Ontario')]).toEqual(['MD', 'NY', 'MD', 'Ontario']);
  });

  it('keeps meta verbatim, drops only nothing at all, and sends objects as JSON', () => {
    expect(metaText('  id 7 ')).toBe('  id 7 ');
    expect(metaText('')).toBeUndefined();
    expect(metaText(42)).toBe('42');
    expect(metaText({ id: 7 })).toBe('{"id":7}');
  });
});
