import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { UsageError } from '../../src/errors/index.js';
import { checkColumnOptions } from '../../src/input/column-options.js';

const columns = ['Site Addr', 'zip', 'tax_account'];

describe('checkColumnOptions', () => {
  it('accepts --map and --meta-column naming columns the input has, compared as the resolver compares names', () => {
    expect(() => checkColumnOptions(columns, { 'site-addr': 'address', ZIP: 'zipcode', tax_account: '' }, 'Tax Account')).not.toThrow();
    expect(() => checkColumnOptions(columns, {}, undefined)).not.toThrow();
  });

  it('refuses a --map column the input does not have, naming the columns it has', () => {
    expect(() => checkColumnOptions(columns, { nosuch: 'address' }, undefined)).toThrow(UsageError);
    expect(() => checkColumnOptions(columns, { nosuch: 'address' }, undefined)).toThrow(
      '--map nosuch=address: the input has no column "nosuch" (its columns: Site Addr, zip, tax_account); name one of them',
    );
  });

  it('refuses a --meta-column the input does not have', () => {
    let error: unknown;
    try {
      checkColumnOptions(columns, {}, 'nosuch');
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toMatchObject({
      code: 'E_USAGE_META_COLUMN',
      message: '--meta-column nosuch: the input has no column "nosuch" (its columns: Site Addr, zip, tax_account); name one of them',
    });
    expect(exitCodeFor(error)).toBe(2);
  });
});
