import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

const sample = (name: string) => fileURLToPath(new URL(`../../samples/${name}`, import.meta.url));

describe('--quiet, as its row in the reference says', () => {
  const sandbox = sandboxPerTest();

  it('prints one line for a run that completes, and the summary for one that does not simply complete', async () => {
    const env = await sandbox.start();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-quiet-'));
    const quiet = (input: string, output: string) =>
      runMain(['property', 'value', '--input', sample(input), '--output', join(dir, output), '--no-store', '-q'], { env });
    const completed = await quiet('showcase/sample-input.csv', 'values.csv');
    expect(completed.code).toBe(0);
    expect(completed.stderr).toMatch(
      /^propdata: completed: \S+values\.csv holds 1[67] ok(, 1 no_content)?; bought \d+\.\d\d USD at list price \(17 components\); nothing from the store\n$/,
    );
    // addresses.csv ends with a row that has no address: invalid_input, exit 3.
    const invalid = await quiet('addresses.csv', 'addresses-values.csv');
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toMatch(/^propdata: completed with invalid rows: /);
  });
});
