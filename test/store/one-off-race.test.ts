import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/**
 * A one-off and a batch on one SQLite file buy an item once (PROTOCOL.md, rule 7), whichever starts
 * first. The one-off leaves the file unopened when no other process has it open: it claims beside it.
 */
const sandbox = sandboxPerTest();

/** Until `condition` holds (a file appearing as another run gets that far), a few ms at a time. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i += 1) await sleep(5);
  expect(condition()).toBe(true);
}

/** The claims in the file now (sections being bought). */
function claims(store: string): number {
  try {
    const db = new Sqlite(store, { readonly: true });
    try {
      return db.prepare<[], { n: number }>('SELECT count(*) AS n FROM claims').get()!.n;
    } finally {
      db.close();
    }
  } catch {
    // Not made yet.
    return 0;
  }
}

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-one-off-race-'));
  const input = join(dir, 'homes.csv');
  writeFileSync(input, `address,zipcode\n${Array.from({ length: 10 }, (_, i) => `${i + 1} Race St,21201`).join('\n')}\n`);
  const store = join(dir, 'propdata.db');
  return { dir, input, store };
}

describe('a one-off racing a batch on one SQLite file', () => {
  it.each(['the one-off', 'the batch'])('buys the item once when %s starts first', async (first) => {
    // Answers slow enough that the other run starts while the first one's request is out.
    const env = await sandbox.start({ latencyMs: [1500, 1500] });
    const { dir, input, store } = workspace();
    const oneOff = () =>
      runMain(['property', 'value', '--address', '5 Race St', '--zipcode', '21201', '--json', '--store', store], { env });
    const batch = () => runMain(['property', 'value', '-i', input, '-o', join(dir, 'out.csv'), '--store', store], { env });
    // Each run's code loaded once before the race (in this process, the first batch's imports alone outlast a request).
    writeFileSync(join(dir, 'warm.csv'), 'address,zipcode\n1 Warm St,21201\n');
    await runMain(['property', 'value', '-i', join(dir, 'warm.csv'), '-o', join(dir, 'warm-out.csv'), '--store', join(dir, 'warm.db')], {
      env,
    });
    await runMain(['property', 'value', '--address', '2 Warm St', '--zipcode', '21201', '--json', '--store', join(dir, 'warm.db')], {
      env,
    });
    const warm = sandbox.current.usage().components;
    let runs;
    if (first === 'the one-off') {
      const alone = oneOff();
      // Its claim is left beside the file: it is sending now.
      await until(() => existsSync(`${store}.pending`) && readdirSync(`${store}.pending`).some((name) => name.endsWith('.json')));
      runs = [await batch(), await alone];
    } else {
      const running = batch();
      // The batch has the file open (its write-ahead log stands beside it) and is buying: its claims are in it.
      await until(() => existsSync(`${store}-wal`) && claims(store) > 0);
      runs = await Promise.all([running, oneOff()]);
    }
    expect(runs.map((run) => run.code)).toEqual([0, 0]);
    expect(sandbox.current.usage()).toMatchObject({ components: warm + 10, chargedAgain: { sections: 0 } });
    // One answer, in both: the one-off's price is row 5's.
    const answer = (JSON.parse(runs[1]!.stdout) as { 'property/value': { result: { value: { price_mean: number } } } }[])[0]!;
    expect(readFileSync(join(dir, 'out.csv'), 'utf8').split('\n')[5]).toContain(`,${answer['property/value'].result.value.price_mean},`);
    // Nothing is left beside the file: the one-off's answer is in the store.
    expect(existsSync(`${store}.pending`) ? readdirSync(`${store}.pending`) : []).toEqual([]);
  });
});
