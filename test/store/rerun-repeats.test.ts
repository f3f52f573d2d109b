import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORE_LOOKAHEAD } from '../../src/policy/policy.js';
import { freshDatabase } from '../helpers/postgres.js';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/**
 * A rerun answered from the store writes what the first run wrote, rows repeated far apart included:
 * a repeat is looked up in the store again (deduplication remembers nothing of what the store
 * answered), and written with its own meta, or none; the store answered it, so it is the store's.
 */
const sandbox = sandboxPerTest();

/**
 * Distinct addresses, then the first 60 again, far past the blocks being looked up (the lookahead
 * and 300 rows more: their first rows are written and remembered by then, no longer on their way),
 * with other meta (every third without).
 */
const DISTINCT = STORE_LOOKAHEAD.blockItems * STORE_LOOKAHEAD.blocksInFlight + 300;
const REPEATS = 60;

function input(): { dir: string; input: string } {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-rerun-repeats-'));
  const rows = Array.from({ length: DISTINCT }, (_, i) => `${i + 1} Main St,21201,first-${i}`);
  for (let i = 0; i < REPEATS; i++) rows.push(`${i + 1} Main St,21201,${i % 3 === 0 ? '' : `again-${i}`}`);
  const file = join(dir, 'in.csv');
  writeFileSync(file, `address,zipcode,meta\n${rows.join('\n')}\n`);
  return { dir, input: file };
}

const DRIVERS = [
  ['SQLite', (dir: string) => Promise.resolve(join(dir, 'propdata.db'))],
  ['PostgreSQL', () => freshDatabase()],
] as const;

describe('a rerun from the store with repeated rows', () => {
  for (const [driver, storeIn] of DRIVERS) {
    for (const format of ['csv', 'jsonl']) {
      it(`writes the first run's bytes (${driver}, ${format})`, async () => {
        const env = await sandbox.start();
        const { dir, input: file } = input();
        const store = await storeIn(dir);
        const run = (name: string, extra: string[]) =>
          runMain(['property', 'value', '-i', file, '-o', join(dir, `${name}.${format}`), '--store', store, '-q', ...extra], { env });
        expect((await run('first', [])).code).toBe(0);
        const paid = sandbox.current.usage();
        expect((await run('rerun', ['--max-age', '1h', '--report', join(dir, 'report.json')])).code).toBe(0);
        expect(sandbox.current.usage()).toEqual(paid);
        // Every row is the store's, a repeat too (looked up in it again): nothing was deduplication's.
        expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))).toMatchObject({
          requests: 0,
          fromStore: DISTINCT + REPEATS,
          componentsSaved: 0,
        });
        const first = readFileSync(join(dir, `first.${format}`), 'utf8');
        expect(first).toContain('again-1');
        expect(readFileSync(join(dir, `rerun.${format}`), 'utf8')).toBe(first);
      });
    }
  }
});
