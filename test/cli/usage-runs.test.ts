import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

const HOMES = fileURLToPath(new URL('../../samples/showcase/sample-input.csv', import.meta.url));

describe('propdata usage --by run', () => {
  it('names each run by its command and output, never by its credentials', async () => {
    const home = mkdtempSync(join(tmpdir(), 'propdata-usage-runs-'));
    const env = { PROPDATA_HOME: home, PROPDATA_CONFIG_DIR: join(home, 'config') };
    const output = join(home, 'values.csv');
    const batch = await runMain(['property', 'value', '--input', HOMES, '--output', output, '--sandbox', '--quiet'], { env });
    expect(batch.code).toBe(0);
    const oneOff = await runMain(['property', 'value', '--address', '43 Valmonte Plaza', '--zipcode', '90274', '--sandbox', '--json'], {
      env,
    });
    expect(oneOff.code).toBe(0);

    const usage = await runMain(['usage', '--by', 'run', '--json', '--sandbox'], { env });
    const runs = (JSON.parse(usage.stdout) as { rows: { run: string }[] }).rows.map((row) => row.run);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\S+ \S+ \d+ property value --input \S+sample-input\.csv --output \S+values\.csv --sandbox --quiet$/,
    );
    expect(runs[1]).toMatch(/ property value --address '43 Valmonte Plaza' --zipcode 90274 --sandbox --json$/);
    // In a terminal, a run's long name wraps within its column.
    const table = await runMain(['usage', '--by', 'run', '--sandbox'], { env, tty: true, columns: 100 });
    expect(table.stdout).toMatch(/^RUN +REQUESTS +COMPONENTS/m);
    expect(Math.max(...table.stdout.split('\n').map((line) => line.length))).toBeLessThan(100);
  });
});
