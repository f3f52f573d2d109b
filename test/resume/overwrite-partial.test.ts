import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statePathFor } from '../../src/resume/run-state.js';
import { databasePerFile, freshSchema } from '../helpers/postgres.js';
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

  it("counts the records in the file itself, not in a killed run's stale state", async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'propdata-partial-')), 'out.csv');
    const run = ['property', 'value', '--input', 'samples/addresses.csv', '--output', output, '--sandbox'];
    expect((await runMain([...run, '--no-store', '--max-components', '10', '-q'])).code).toBe(4);
    const held = readFileSync(output, 'utf8').trimEnd().split('\n').length - 1;
    expect(held).toBeGreaterThan(0);
    // What a run killed with kill -9 leaves: its state as it started, holding none of what it wrote since.
    const state = statePathFor(output);
    writeFileSync(state, JSON.stringify({ ...JSON.parse(readFileSync(state, 'utf8')), records: 0 }));
    const again = await runMain([...run, '--store', join(mkdtempSync(join(tmpdir(), 'propdata-partial-store-')), 'propdata.db')]);
    expect(again.stderr).toContain(`starting ${output} over: an earlier run left it partial (${held} records)`);
  });
});

const database = databasePerFile();

for (const [name, storeOf] of [
  ['SQLite', (dir: string) => join(dir, 'propdata.db')],
  ['PostgreSQL', () => freshSchema(database.url)],
] as const) {
  describe(`what a run started over says the store gives it (${name})`, () => {
    it('says what earlier runs bought comes from the store only when the store holds the job running', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'propdata-partial-'));
      const output = join(dir, 'out.csv');
      const store = storeOf(dir);
      const run = ['property', 'value', '--input', 'samples/addresses.csv', '--output', output, '--sandbox'];
      // Left partial by a run without the store: the store holds nothing of it.
      expect((await runMain([...run, '--no-store', '--max-components', '10'])).code).toBe(4);
      const stopped = await runMain([...run, '--store', store, '--max-components', '10']);
      expect(stopped.stderr).toMatch(/starting .*out\.csv over: an earlier run left it partial \(\d+ records\); --resume/);
      expect(stopped.stderr).not.toMatch(/comes from the store/);
      // Left partial by a run of this job with the store: what it bought comes from it.
      const again = await runMain([...run, '--store', store]);
      expect(again.stderr).toMatch(/left it partial \(\d+ records\) \(what earlier runs of this job bought comes from the store\)/);
    });
  });
}
