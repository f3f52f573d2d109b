import { copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { itemRefOf } from '../../src/model/section-refs.js';
import { openExistingStore, openStore, type StoreEntry } from '../../src/store/index.js';
import { pendingDir, pendingName, writeClaimIntent, writePending } from '../../src/store/pending.js';
import { A as ACCOUNT, answerOf, home, request, section, VALUE } from './contract/fixtures.js';
import { tempStorePath } from './helpers/temp-store.js';

const NOW = Date.UTC(2026, 10, 23, 1, 0);
const refOf = (address: string) => itemRefOf(VALUE, home(address));

/** What a one-off leaves: its spend, the windows its answer stated, its answer. */
function oneOff(address: string, at = NOW, figure = 1): StoreEntry {
  return {
    request: request(at, `run-${address}`),
    windows: [{ periodSeconds: 60, limit: 250, remaining: 249, resetAt: at + 30_000 }],
    answers: [answerOf(refOf(address), [section(figure)])],
  };
}

async function requests(path: string): Promise<number> {
  const store = await openStore(path, { readonly: true });
  try {
    return (await store.usage({ by: 'month', account: ACCOUNT })).total.requests;
  } finally {
    await store.close();
  }
}

describe('records left beside the store (a one-off does not open it)', () => {
  it('are applied by its next opening, a read-only one included: spend, windows and answer, and their files removed', async () => {
    const path = tempStorePath();
    writePending(pendingDir(path), oneOff('405 Dyer Ave'));
    writePending(pendingDir(path), oneOff('43 Valmonte Plaza'));
    expect(existsSync(path)).toBe(false);
    expect(statSync(pendingDir(path)).mode & 0o777).toBe(0o700);
    // `propdata usage` opens an existing store read-only: the records alone make one.
    const store = (await openExistingStore(path, { readonly: true, now: () => NOW }))!;
    expect((await store.usage({ by: 'month', account: ACCOUNT })).total).toMatchObject({
      requests: 2,
      components: 2,
      billed: 2,
      cost: 0.5,
    });
    expect(await store.loadWindows(ACCOUNT)).toEqual(oneOff('x').windows);
    // Kept as of the one-off's time, not the opening's.
    expect((await store.find(ACCOUNT, [refOf('405 Dyer Ave')], { maxAgeMs: 60_000 }))[0]!.sections).toEqual([
      { body: section(1), at: NOW },
    ]);
    await store.close();
    expect(readdirSync(pendingDir(path))).toEqual([]);
  });

  it('are applied once, even when a process died after applying one and before removing its file', async () => {
    const path = tempStorePath();
    writePending(pendingDir(path), oneOff('405 Dyer Ave'));
    const [name] = readdirSync(pendingDir(path));
    const copy = join(path, '..', 'kept-copy.json');
    copyFileSync(join(pendingDir(path), name!), copy);
    await (await openStore(path)).close();
    expect(await requests(path)).toBe(1);
    // The file back, as if its removal never happened.
    copyFileSync(copy, join(pendingDir(path), name!));
    await (await openStore(path)).close();
    expect(await requests(path)).toBe(1);
    expect(readdirSync(pendingDir(path))).toEqual([]);
  });

  it('never replace what a run kept after the one-off, whenever they are applied', async () => {
    const path = tempStorePath();
    // A batch has the store open when the one-off leaves its record; it keeps a newer answer of the same item.
    const batch = await openStore(path, { now: () => NOW + 60_000 });
    writePending(pendingDir(path), oneOff('405 Dyer Ave', NOW, 1));
    await batch.record({ request: request(NOW + 60_000, 'batch'), windows: [], answers: [answerOf(refOf('405 Dyer Ave'), [section(2)])] });
    await batch.close();
    const store = await openStore(path, { now: () => NOW + 120_000 });
    expect((await store.find(ACCOUNT, [refOf('405 Dyer Ave')], { maxAgeMs: 3_600_000 }))[0]!.sections[0]?.body).toEqual(section(2));
    await store.close();
  });

  it('written by a propdata before schema 3 count their spend; their answer, filed by command, is dropped as the store’s were', async () => {
    const path = tempStorePath();
    const { answers: _answers, ...spend } = oneOff('405 Dyer Ave');
    writePending(pendingDir(path), {
      ...spend,
      answer: { key: 'v2/property/value|{}', sections: ['property/value'], chunk: {} },
    } as unknown as StoreEntry);
    const store = await openStore(path);
    expect((await store.usage({ by: 'month', account: ACCOUNT })).total.requests).toBe(1);
    expect((await store.info()).answers).toEqual([]);
    await store.close();
  });

  it('never include a file still being written', async () => {
    const path = tempStorePath();
    writePending(pendingDir(path), oneOff('405 Dyer Ave'));
    writeFileSync(join(pendingDir(path), `${NOW}-1-half.writing`), '{"request": {"at"');
    await (await openStore(path)).close();
    expect(await requests(path)).toBe(1);
    expect(readdirSync(pendingDir(path))).toEqual([`${NOW}-1-half.writing`]);
  });
});

describe("a one-off's claim left beside the store (PROTOCOL.md, rule 7)", () => {
  const ref = refOf('405 Dyer Ave');
  const claims = ref.sections.map((section) => ({ item: ref.item, ...section }));
  const intent = (expires: number) => ({ claim: { account: ACCOUNT, owner: 'one-off', sections: claims, expires } });

  it('is claimed for the one-off by any opening, and stays; its answer, under the same name, replaces it and releases the claim', async () => {
    const path = tempStorePath();
    const name = pendingName(Date.now());
    writeClaimIntent(pendingDir(path), name, intent(Date.now() + 60_000));
    const batch = await openStore(path);
    try {
      expect(await batch.held(ACCOUNT, 'a batch', claims)).toEqual([true]);
      expect(readdirSync(pendingDir(path))).toEqual([`${name}.json`]);
      // The one-off's answer replaces its claim; the next opening applies it.
      writePending(pendingDir(path), { ...oneOff('405 Dyer Ave', Date.now()), owner: 'one-off', settles: claims }, name);
      await (await openStore(path)).close();
      expect(await batch.held(ACCOUNT, 'a batch', claims)).toEqual([false]);
      expect((await batch.find(ACCOUNT, [ref], { maxAgeMs: 60_000 }))[0]!.sections[0]).toMatchObject({ body: section(1) });
      expect(readdirSync(pendingDir(path))).toEqual([]);
    } finally {
      await batch.close();
    }
  });

  it('is removed once its lease has run out (its one-off died): nobody waits for it', async () => {
    const path = tempStorePath();
    writeClaimIntent(pendingDir(path), pendingName(Date.now()), intent(Date.now() - 1));
    const store = await openStore(path);
    try {
      expect(await store.held(ACCOUNT, 'a batch', claims)).toEqual([false]);
      expect(readdirSync(pendingDir(path))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
