import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { databasePerFile, freshSchema } from '../helpers/postgres.js';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/**
 * Kept texts changed as a hostile tester changed them (issue 44): item frames (the address_info kept
 * per item) and sections cut short, made `[]`, `{}` or bytes no JSON reader takes. Each counts as
 * missing: the run ends, its output is the first run's, row for row, and what was damaged is bought
 * again once, counted once, and replaced. On both drivers.
 */
const sandbox = sandboxPerTest();
const database = databasePerFile();

const ROWS = 40;

/** The damage, by item (the items' ids in the order the first run kept them: 1 to ROWS). */
const FRAMES = { cut: [3, 4], list: [10], object: [11], bytes: [12] };
const SECTIONS = { cut: [20, 21], list: [25], object: [26], bytes: [27] };
const DAMAGED = [...Object.values(FRAMES), ...Object.values(SECTIONS)].flat().length;

/** One statement a kind of damage, `$T` the table, `$C` the column, `$IDS` the items. */
const EDITS = [
  ['cut', 'UPDATE $T SET $C = substr($C, 1, 40) WHERE $K IN ($IDS)'],
  ['list', "UPDATE $T SET $C = '[]' WHERE $K IN ($IDS)"],
  ['object', "UPDATE $T SET $C = '{}' WHERE $K IN ($IDS)"],
  ['bytes', "UPDATE $T SET $C = 'deadbeef{' WHERE $K IN ($IDS)"],
] as const;

function edits(schema: string): string[] {
  return EDITS.flatMap(([kind, sql]) => [
    sql.replace('$T', `${schema}items`).replaceAll('$C', 'frame').replace('$K', 'id').replace('$IDS', FRAMES[kind].join(',')),
    sql.replace('$T', `${schema}sections`).replaceAll('$C', 'body').replace('$K', 'item').replace('$IDS', SECTIONS[kind].join(',')),
  ]);
}

interface Driver {
  name: string;
  store: (dir: string) => string;
  damage: (store: string) => Promise<void>;
}

const DRIVERS: Driver[] = [
  {
    name: 'SQLite',
    store: (dir) => join(dir, 'propdata.db'),
    damage: (store) => {
      const db = new Sqlite(store);
      try {
        for (const sql of edits('')) db.prepare(sql).run();
      } finally {
        db.close();
      }
      return Promise.resolve();
    },
  },
  {
    name: 'PostgreSQL',
    store: () => freshSchema(database.url),
    damage: async (store) => {
      const schema = new URL(store).searchParams.get('schema')!;
      for (const sql of edits(`${schema}.`)) await database.admin.query(sql);
    },
  },
];

describe.each(DRIVERS)('damaged frames and sections ($name)', (driver) => {
  it('end the run: the output whole and as first written, each damaged item bought again once, counted, replaced', async () => {
    const env = { ...(await sandbox.start()), PROPDATA_HOME: mkdtempSync(join(tmpdir(), 'propdata-home-')) };
    const dir = mkdtempSync(join(tmpdir(), 'propdata-damaged-frames-'));
    const input = join(dir, 'homes.csv');
    writeFileSync(input, `address,zipcode\n${Array.from({ length: ROWS }, (_, i) => `${i + 2} Main St,21201`).join('\n')}\n`);
    const store = driver.store(dir);
    const run = (output: string) =>
      runMain(['property', 'value', '-i', input, '-o', join(dir, output), '--store', store, '--max-age', '30d'], { env });
    expect((await run('first.csv')).code).toBe(0);
    expect(sandbox.current.usage().components).toBe(ROWS);
    await driver.damage(store);

    const again = await run('again.csv');
    expect(again.code).toBe(0);
    expect(readFileSync(join(dir, 'again.csv'), 'utf8')).toBe(readFileSync(join(dir, 'first.csv'), 'utf8'));
    expect(sandbox.current.usage()).toMatchObject({ components: ROWS + DAMAGED, chargedAgain: { sections: DAMAGED } });
    expect(again.stderr).toContain(`${DAMAGED} kept answers could not be read (damaged): they were bought again and replaced`);

    const third = await run('third.csv');
    expect(third.code).toBe(0);
    expect(third.stderr).not.toMatch(/could not be read/);
    expect(readFileSync(join(dir, 'third.csv'), 'utf8')).toBe(readFileSync(join(dir, 'first.csv'), 'utf8'));
    expect(sandbox.current.usage().components).toBe(ROWS + DAMAGED);
  });
});
