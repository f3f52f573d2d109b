import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

describe("a one-off's usage errors name flags", () => {
  it('for an identifier value', async () => {
    const zip = await runMain(['property', 'value', '--address', '1 Main St', '--zipcode', '123', '--sandbox']);
    expect(zip.code).toBe(2);
    expect(zip.stderr).toMatch(/--zipcode must be 5 digits, got "123"/);
    expect(zip.stderr).not.toMatch(/\brow\b|column/);
    const block = await runMain(['block', 'hcri', '--block-id', '123', '--sandbox']);
    expect(block.stderr).toMatch(/--block-id must be 15 digits/);
  });

  it('for a parameter value', async () => {
    const result = await runMain(['property', 'value-within-block', '--slug', 'x', '--client-value', 'abc', '--sandbox']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--client-value must be a number, got "abc"/);
  });
});
