import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { itemRefOf } from '../../src/model/section-refs.js';
import { openStore } from '../../src/store/index.js';
import { foundOf, slotsOf, type KeptRows } from '../../src/store/sqlite/item-lookup.js';
import { LookupThread } from '../../src/store/sqlite/lookups-off-thread.js';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { STORE_LOOKUPS } from '../../src/policy/policy.js';
import { A, answerOf, B, entryOf, home, NO_CONTENT, section, VALUE_AND_RENTAL } from './contract/fixtures.js';
import { tempStorePath } from './helpers/temp-store.js';

/**
 * A batch's lookups on SQLite are read on a thread of their own (store/sqlite/lookups-off-thread.ts),
 * and decoded on the main thread: what they find must be what the store's own connection finds.
 */
describe('the SQLite lookup thread', () => {
  const HOUR = 3_600_000;
  const refs = Array.from({ length: 60 }, (_, i) => itemRefOf(VALUE_AND_RENTAL, home(`${i + 1} Dyer Ave`)));

  /** Each item as found from the thread's KeptRows, as the store decodes them. */
  function foundIn(kept: KeptRows | undefined) {
    let at = 0;
    return refs.map((ref) => {
      const found = foundOf(ref.sections, kept!, at);
      at += slotsOf(ref.sections);
      return found;
    });
  }

  async function thread(path: string): Promise<LookupThread> {
    const lookups = new LookupThread({ path, busyTimeoutMs: 1_000 });
    expect(lookups.ready()).toBe(false);
    expect(await lookups.started).toBe(true);
    return lookups;
  }

  it('finds what the store’s own connection finds: whole, part, none, stale, damaged, BLOBs, another account', async () => {
    let now = 10 * HOUR;
    const path = tempStorePath();
    const store = await openStore(path, { now: () => now });
    // Stale by the time of the lookup: kept four hours ago, looked up with --max-age 1h.
    await store.record(entryOf(refs.slice(40, 45).map((ref) => answerOf(ref, [section(1), section(2)]))));
    now += 4 * HOUR;
    await store.record(entryOf(refs.slice(0, 20).map((ref, i) => answerOf(ref, [section(i), NO_CONTENT]))));
    await store.record(
      entryOf(refs.slice(20, 30).map((ref) => ({ ...answerOf(ref, [section(3)]), sections: [answerOf(ref, [section(3)]).sections[0]!] }))),
    );
    await store.record(
      entryOf(
        refs.slice(30, 35).map((ref) => answerOf(ref, [section(4), section(5)])),
        { account: B },
      ),
    );
    const other = new Sqlite(path);
    // Items 6 to 8 are refs 0 to 2: a body cut short, a time written over, a frame that is none.
    other.prepare('UPDATE sections SET body = \'{"api_code":\' WHERE item = 6').run();
    other.prepare("UPDATE sections SET at = 'yesterday' WHERE item = 7").run();
    other.prepare("UPDATE items SET frame = '[]' WHERE id = 8").run();
    // Item 9 is ref 3: its texts kept as BLOBs (a file another tool wrote), readable all the same.
    other.prepare('UPDATE sections SET body = CAST(body AS BLOB) WHERE item = 9').run();
    other.prepare('UPDATE items SET frame = CAST(frame AS BLOB) WHERE id = 9').run();
    other.close();
    const lookups = await thread(path);
    // One item at a time: the store's own connection (a lookup under STORE_LOOKUPS.threadFromItems).
    const own = await Promise.all(refs.map(async (ref) => (await store.find(A, [ref], { maxAgeMs: HOUR }))[0]!));
    const found = foundIn(await lookups.find(A, refs, now - HOUR));
    expect(found).toEqual(own);
    expect(found.filter((item) => item.damaged > 0)).toHaveLength(3);
    expect(found.filter((item) => item.sections.every(Boolean))).toHaveLength(17);
    expect(found.slice(20, 30).map((item) => item.sections.map(Boolean))).toEqual(Array(10).fill([true, false]));
    expect(found.slice(30).every((item) => item.sections.every((kept) => kept === undefined))).toBe(true);
    await lookups.close();
    await store.close();
  });

  it('finds an answer the store’s connection committed just before the ask', async () => {
    const path = tempStorePath();
    const store = await openStore(path);
    const lookups = await thread(path);
    expect(foundIn(await lookups.find(A, refs, 0)).every((item) => item.sections.every((kept) => kept === undefined))).toBe(true);
    await store.record(entryOf([answerOf(refs[59]!, [section(7), section(8)])]));
    expect(foundIn(await lookups.find(A, refs, 0))[59]!.sections).toMatchObject([{ body: section(7) }, { body: section(8) }]);
    await lookups.close();
    await store.close();
  });

  it('leaves the lookups to the store’s connection when it cannot open the file, and once closed', async () => {
    const missing = new LookupThread({ path: tempStorePath(), busyTimeoutMs: 1_000 });
    missing.ready();
    expect(await missing.started).toBe(false);
    expect(missing.ready()).toBe(false);
    expect(await missing.find(A, refs, 0)).toBeUndefined();
    const path = tempStorePath();
    const store = await openStore(path);
    const lookups = await thread(path);
    await lookups.close();
    expect(lookups.ready()).toBe(false);
    expect(await lookups.find(A, refs, 0)).toBeUndefined();
    await store.close();
  });

  it('serves a batch’s lookups once they pass STORE_LOOKUPS.threadAfterItems, as the store’s connection does, damage counted', async () => {
    const path = tempStorePath();
    const store = await openSqliteStore(path);
    if (!(store instanceof SqliteStore)) throw new Error('openSqliteStore gave another store');
    await store.record(entryOf(refs.map((ref, i) => answerOf(ref, [section(i), NO_CONTENT]))));
    const other = new Sqlite(path);
    other.prepare("UPDATE sections SET body = '[' WHERE item = 3").run();
    other.close();
    const own = await Promise.all(refs.map(async (ref) => (await store.find(A, [ref], { maxAgeMs: HOUR }))[0]!));
    // A batch's blocks, on the store's connection until they pass the threshold; then the thread starts.
    for (let looked = 0; looked <= STORE_LOOKUPS.threadAfterItems; looked += refs.length) await store.find(A, refs, { maxAgeMs: HOUR });
    expect(await store.lookupThreadStarted).toBe(true);
    const damaged = store.problems().damaged;
    expect(await store.find(A, refs, { maxAgeMs: HOUR })).toEqual(own);
    expect(store.problems().damaged).toBe(damaged + 2);
    await store.close();
  });
});
