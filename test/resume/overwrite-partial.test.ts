import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

describe('an output an earlier run left partial', () => {
  it('is started over without --resume, with a warning naming --resume', async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'propdata-partial-')), 'out.csv');
    const run = ['property', 'value', '--input', 'samples/addresses.csv', '--output', output, '--sandbox', '--no-store', '-q'];
    const stopped = await runMain([...run, '--max-components', '10']);
    expect(stopped.code).toBe(4);
    expect(stopped.stderr).not.toMatch(/warning/);
    const again = await runMain(run);
    expect(again.stderr).toMatch(/warning: starting .*out\.csv over: an earlier run left it partial \(\d+ records\).*--resume/);
    // Now complete: the next run has nothing to warn about.
    expect((await runMain(run)).stderr).not.toMatch(/warning/);
  });
});
