import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/** One damaged answer never kills a run: it is a missing section, bought again, replaced, and said once. */
const sandbox = sandboxPerTest();

describe('a damaged answer in the store', () => {
  it('is bought again and replaced, the run says so once, and the next run finds it whole', async () => {
    const env = await sandbox.start();
    const dir = mkdtempSync(join(tmpdir(), 'propdata-broken-answer-'));
    const input = join(dir, 'homes.csv');
    writeFileSync(input, `address,zipcode\n${Array.from({ length: 40 }, (_, i) => `${i + 2} Main St,21201`).join('\n')}\n`);
    const store = join(dir, 'propdata.db');
    const command = (output: string) => ['property', 'value', '-i', input, '-o', join(dir, output), '--store', store, '--max-age', '30d'];
    expect((await runMain(command('first.csv'), { env })).code).toBe(0);
    const db = new Sqlite(store);
    db.prepare(
      "UPDATE sections SET body = x'deadbeefdeadbeef' WHERE item = (SELECT item FROM sections ORDER BY item LIMIT 1 OFFSET 20)",
    ).run();
    db.close();

    const again = await runMain(command('again.csv'), { env });
    expect(again.code).toBe(0);
    expect(sandbox.current.usage().components).toBe(41);
    expect(again.stderr.match(/1 kept answers could not be read \(damaged\): they were bought again and replaced/g)).toHaveLength(1);

    const third = await runMain(command('third.csv'), { env });
    expect(third.code).toBe(0);
    expect(third.stderr).not.toMatch(/could not be read/);
    expect(sandbox.current.usage().components).toBe(41);
  });
});
