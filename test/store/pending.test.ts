import { copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openExistingStore, openStore } from '../../src/store/index.js';
import type { StoreEntry } from '../../src/store/entry.js';
import { pendingDir, writePending } from '../../src/store/pending.js';
import { itemKey, propertyChunk } from './helpers/chunks.js';
import { tempStorePath } from './helpers/temp-store.js';

const ACCOUNT = 'https://api.example.com key:0123456789abcdef';
const SECTIONS = ['property/value'];
const NOW = Date.UTC(2026, 10, 23, 1, 0);

/** What a one-off leaves: its spend, the windows its answer stated, its answer. */
function oneOff(address: string, at = NOW): StoreEntry {
  return {
    request: {
      at,
      run: `run-${address}`,
      account: ACCOUNT,
      endpoint: 'property/value',
      items: 1,
      components: 1,
      status: 200,
      billed: 1,
      cost: 0.25,
    },
    windows: [{ periodSeconds: 60, limit: 250, remaining: 249, resetAt: at + 30_000 }],
    answer: { key: itemKey(address), sections: SECTIONS, chunk: propertyChunk(address, SECTIONS) },
  };
}

async function requests(path: string): Promise<number> {
  const store = await openStore(path, { readonly: true });
  try {
    return store.usage({ by: 'month', account: ACCOUNT }).total.requests;
  } finally {
    store.close();
  }
}

describe('records left beside the store (a one-off does not open it)', () => {
  it('are applied by its next opening, a read-only one included: spend, windows and answer, and their files removed', async () => {
    const path = tempStorePath();
    writePending(path, oneOff('405 Dyer Ave'));
    writePending(path, oneOff('43 Valmonte Plaza'));
    expect(existsSync(path)).toBe(false);
    expect(statSync(pendingDir(path)).mode & 0o777).toBe(0o700);
    // `propdata usage` opens an existing store read-only: the records alone make one.
    const store = (await openExistingStore(path, { readonly: true }))!;
    expect(store.usage({ by: 'month', account: ACCOUNT }).total).toMatchObject({ requests: 2, components: 2, billed: 2, cost: 0.5 });
    expect(store.loadWindows(ACCOUNT, NOW)).toEqual(oneOff('x').windows);
    expect(store.answers(ACCOUNT).get(itemKey('405 Dyer Ave'), SECTIONS, { maxAgeMs: 60_000, now: NOW })).toEqual(
      propertyChunk('405 Dyer Ave', SECTIONS),
    );
    store.close();
    expect(readdirSync(pendingDir(path))).toEqual([]);
  });

  it('are applied once, even when a process died after applying one and before removing its file', async () => {
    const path = tempStorePath();
    writePending(path, oneOff('405 Dyer Ave'));
    const [name] = readdirSync(pendingDir(path));
    const copy = join(path, '..', 'kept-copy.json');
    copyFileSync(join(pendingDir(path), name!), copy);
    (await openStore(path)).close();
    expect(await requests(path)).toBe(1);
    // The file back, as if its removal never happened.
    copyFileSync(copy, join(pendingDir(path), name!));
    (await openStore(path)).close();
    expect(await requests(path)).toBe(1);
    expect(readdirSync(pendingDir(path))).toEqual([]);
  });

  it('never include a file still being written', async () => {
    const path = tempStorePath();
    writePending(path, oneOff('405 Dyer Ave'));
    writeFileSync(join(pendingDir(path), `${NOW}-1-half.writing`), '{"request": {"at"');
    (await openStore(path)).close();
    expect(await requests(path)).toBe(1);
    expect(readdirSync(pendingDir(path))).toEqual([`${NOW}-1-half.writing`]);
  });
});
